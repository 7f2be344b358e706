import type { Insertable, Updateable } from "kysely";
import type { AttemptRecord, DeliveryAttempt } from "../core/delivery-attempt.js";
import type { Executor } from "./executor.js";
import type { WebhookEndpointsTable } from "./schema.js";

// An endpoint as the domain reads it, in its names (the columns aliased).
const ENDPOINT = [
  "id",
  "business_id as businessId",
  "url",
  "event_types as eventTypes",
  "enabled",
  "disabled_reason as disabledReason",
  "secret_ciphertext as secretCiphertext",
  "previous_secret_ciphertext as previousSecretCiphertext",
  "previous_secret_until as previousSecretUntil",
  "failing_since as failingSince",
  "consecutive_failures as consecutiveFailures",
  "paused_until as pausedUntil",
  "deleted_at as deletedAt",
  "created_at as createdAt",
  "updated_at as updatedAt",
] as const;

type Endpoint = Awaited<ReturnType<typeof findEndpointsById>>[number];

/**
 * The columns of an endpoint's fields, given in the domain's names: the one mapping of its
 * writes. A field left out is a column left as it is (the query builder skips `undefined`).
 */
function columns(endpoint: Endpoint): Insertable<WebhookEndpointsTable>;
function columns(fields: Partial<Endpoint>): Updateable<WebhookEndpointsTable>;
function columns(fields: Partial<Endpoint>): Updateable<WebhookEndpointsTable> {
  return {
    id: fields.id,
    business_id: fields.businessId,
    url: fields.url,
    event_types: fields.eventTypes,
    enabled: fields.enabled,
    disabled_reason: fields.disabledReason,
    secret_ciphertext: fields.secretCiphertext,
    previous_secret_ciphertext: fields.previousSecretCiphertext,
    previous_secret_until: fields.previousSecretUntil,
    failing_since: fields.failingSince,
    consecutive_failures: fields.consecutiveFailures,
    paused_until: fields.pausedUntil,
    deleted_at: fields.deletedAt,
    created_at: fields.createdAt,
    updated_at: fields.updatedAt,
  };
}

export async function insertEndpoint(db: Executor, endpoint: Endpoint): Promise<void> {
  await db.insertInto("webhook_endpoints").values(columns(endpoint)).execute();
}

/** The business's endpoints that were not deleted, oldest first. */
export function listEndpoints(db: Executor, businessId: string) {
  return db
    .selectFrom("webhook_endpoints")
    .select(ENDPOINT)
    .where("business_id", "=", businessId)
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export function findEndpoint(db: Executor, businessId: string, id: string) {
  return db
    .selectFrom("webhook_endpoints")
    .select(ENDPOINT)
    .where("id", "=", id)
    .where("business_id", "=", businessId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export function findEndpointsById(db: Executor, ids: readonly string[]) {
  return db
    .selectFrom("webhook_endpoints")
    .select(ENDPOINT)
    .where("id", "in", [...ids])
    .execute();
}

/** Sets the endpoint's fields given (in the domain's names); the others stay as they are. */
export async function updateEndpoint(db: Executor, id: string, fields: Partial<Endpoint>): Promise<void> {
  await db.updateTable("webhook_endpoints").set(columns(fields)).where("id", "=", id).execute();
}

/** Ends the endpoint's pending deliveries with `state` (cancelled when deleted, failed when disabled). */
export async function closePendingDeliveries(
  db: Executor,
  endpointId: string,
  state: "cancelled" | "failed",
  reason: string,
): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({ state, last_error: reason, lease_until: null })
    .where("endpoint_id", "=", endpointId)
    .where("state", "=", "pending")
    .execute();
}

/** One attempt to deliver an event, given in the domain's names: its columns mapped once. */
export async function insertAttempt(db: Executor, attempt: AttemptRecord): Promise<void> {
  await db
    .insertInto("webhook_attempts")
    .values({
      id: attempt.id,
      delivery_id: attempt.deliveryId,
      event_id: attempt.eventId,
      endpoint_id: attempt.endpointId,
      attempt: attempt.attempt,
      started_at: attempt.startedAt,
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      response_excerpt: attempt.responseExcerpt,
      error: attempt.error,
    })
    .execute();
}

/** An event's delivery attempts, oldest first, as the domain reads them (the columns aliased). */
export function attemptsOf(db: Executor, eventId: string): Promise<DeliveryAttempt[]> {
  return db
    .selectFrom("webhook_attempts")
    .select([
      "endpoint_id as endpointId",
      "attempt",
      "started_at as startedAt",
      "duration_ms as durationMs",
      "status_code as statusCode",
      "response_excerpt as responseExcerpt",
      "error",
    ])
    .where("event_id", "=", eventId)
    .orderBy("started_at")
    .orderBy("attempt")
    .execute();
}
