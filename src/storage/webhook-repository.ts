import type { Insertable, Selectable, Updateable } from "kysely";
import type { Executor } from "./executor.js";
import type { WebhookAttemptsTable, WebhookEndpointsTable } from "./schema.js";

export type EndpointRow = Selectable<WebhookEndpointsTable>;

export async function insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>): Promise<void> {
  await db.insertInto("webhook_endpoints").values(row).execute();
}

/** The business's endpoints that were not deleted, oldest first. */
export function listEndpoints(db: Executor, businessId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export function findEndpoint(db: Executor, businessId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", id)
    .where("business_id", "=", businessId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export function findEndpointsById(db: Executor, ids: readonly string[]): Promise<EndpointRow[]> {
  return db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "in", [...ids])
    .execute();
}

export async function updateEndpoint(
  db: Executor,
  id: string,
  fields: Updateable<WebhookEndpointsTable>,
): Promise<void> {
  await db.updateTable("webhook_endpoints").set(fields).where("id", "=", id).execute();
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

export async function insertAttempt(db: Executor, row: Selectable<WebhookAttemptsTable>): Promise<void> {
  await db.insertInto("webhook_attempts").values(row).execute();
}

export function attemptsOf(db: Executor, eventId: string) {
  return db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("event_id", "=", eventId)
    .orderBy("started_at")
    .orderBy("attempt")
    .execute();
}
