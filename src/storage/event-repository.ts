import type { Selectable } from "kysely";
import { type DeliveryDialect, type DeliveryRow, endpointsWithChain } from "./delivery-repository.js";
import type { Executor } from "./executor.js";
import type { EventsTable } from "./schema.js";

export type EventRow = Selectable<EventsTable>;

export async function insertEvent(db: Executor, row: EventRow): Promise<void> {
  await db.insertInto("events").values(row).execute();
}

/** The business's enabled endpoints, with the event types each takes (null: every type). */
export function enabledEndpoints(db: Executor, businessId: string) {
  return db
    .selectFrom("webhook_endpoints")
    .select(["id", "event_types"])
    .where("business_id", "=", businessId)
    .where("enabled", "=", 1)
    .execute();
}

/**
 * One pending delivery per endpoint: due now, or, where the endpoint already has a pending
 * delivery of an earlier event of the same account, unscheduled until that one settles (the
 * chain: see delivery-repository.ts).
 */
export async function insertDeliveries(
  db: Executor,
  dialect: DeliveryDialect,
  event: Pick<EventRow, "id" | "business_id" | "sequence" | "account_number">,
  endpointIds: readonly string[],
  newId: () => string,
  now: string,
  firstAttempt: (behindPending: boolean) => string,
): Promise<void> {
  if (endpointIds.length === 0) return;
  const chained =
    event.account_number === null
      ? new Set<string>()
      : await endpointsWithChain(db, dialect, endpointIds, event.account_number);
  await db
    .insertInto("webhook_deliveries")
    .values(
      endpointIds.map((endpointId) => ({
        id: newId(),
        event_id: event.id,
        endpoint_id: endpointId,
        business_id: event.business_id,
        sequence: event.sequence,
        account_number: event.account_number,
        state: "pending" as const,
        attempts: 0,
        next_attempt_at: firstAttempt(chained.has(endpointId)),
        lease_until: null,
        last_status: null,
        last_error: null,
        created_at: now,
        delivered_at: null,
      })),
    )
    .onConflict((oc) => oc.columns(["event_id", "endpoint_id"]).doNothing())
    .execute();
}

export function findEvent(db: Executor, businessId: string, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom("events")
    .selectAll()
    .where("id", "=", id)
    .where("business_id", "=", businessId)
    .executeTakeFirst();
}

/**
 * The business's events of `type` written at `createdAt`, one index seek on (business_id,
 * created_at, sequence): a payment's `payment.received` is written with its transaction, at its
 * recording time.
 */
export function eventsWrittenAt(
  db: Executor,
  businessId: string,
  type: string,
  createdAt: string,
): Promise<EventRow[]> {
  return db
    .selectFrom("events")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("created_at", "=", createdAt)
    .where("type", "=", type)
    .execute();
}

/** Events whose sequence lies in [from, upTo], newest first: an index range read. */
export function eventsBySequence(db: Executor, businessId: string, from: number, upTo: number) {
  return db
    .selectFrom("events")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("sequence", ">=", from)
    .where("sequence", "<=", upTo)
    .orderBy("sequence", "desc")
    .execute();
}

/** How many of the business's events have this type: an index-only count. */
export async function countEventsOfType(db: Executor, businessId: string, type: string): Promise<number> {
  const row = await db
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("business_id", "=", businessId)
    .where("type", "=", type)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** One page of the business's events of this type, newest first. */
export function eventsOfType(db: Executor, businessId: string, type: string, offset: number, limit: number) {
  return db
    .selectFrom("events")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("type", "=", type)
    .orderBy("sequence", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The deliveries of these events, to every endpoint. */
export function deliveriesOf(db: Executor, eventIds: readonly string[]): Promise<DeliveryRow[]> {
  if (eventIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("event_id", "in", eventIds)
    .orderBy("created_at")
    .orderBy("endpoint_id")
    .execute();
}

/** Temporary accounts past their expiry with no account.expired yet, oldest expiry first. */
export function accountsDueExpiredEvent(db: Executor, now: string, limit: number) {
  return db
    .selectFrom("accounts")
    .select(["id", "business_id"])
    .where("expired_event_at", "is", null)
    .where("expires_at", "<=", now)
    .orderBy("expires_at")
    .limit(limit)
    .execute();
}

/** Marks account.expired as emitted; false when another process did it first. */
export async function markExpiredEvent(db: Executor, accountId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable("accounts")
    .set({ expired_event_at: now })
    .where("id", "=", accountId)
    .where("expired_event_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
