import type { DeliveryRow } from "./delivery-repository.js";
import type { EventRow } from "./event-writes.js";
import type { Executor } from "./executor.js";

export type { EventRow };

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
