import type { WrittenEvent } from "../core/event-to-write.js";
import type { Executor } from "./executor.js";

// An event and its deliveries as the domain reads them, in its names (the columns aliased).
const EVENT = [
  "id",
  "business_id as businessId",
  "sequence",
  "type",
  "account_number as accountNumber",
  "data",
  "created_at as createdAt",
] as const;
const DELIVERY = [
  "id",
  "event_id as eventId",
  "endpoint_id as endpointId",
  "state",
  "attempts",
  "next_attempt_at as nextAttemptAt",
  "lease_until as leaseUntil",
  "last_status as lastStatus",
  "last_error as lastError",
  "delivered_at as deliveredAt",
] as const;

export function findEvent(db: Executor, businessId: string, id: string): Promise<WrittenEvent | undefined> {
  return db
    .selectFrom("events")
    .select(EVENT)
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
): Promise<WrittenEvent[]> {
  return db
    .selectFrom("events")
    .select(EVENT)
    .where("business_id", "=", businessId)
    .where("created_at", "=", createdAt)
    .where("type", "=", type)
    .execute();
}

/** Events whose sequence lies in [from, upTo], newest first: an index range read. */
export function eventsBySequence(
  db: Executor,
  businessId: string,
  from: number,
  upTo: number,
): Promise<WrittenEvent[]> {
  return db
    .selectFrom("events")
    .select(EVENT)
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
export function eventsOfType(
  db: Executor,
  businessId: string,
  type: string,
  offset: number,
  limit: number,
): Promise<WrittenEvent[]> {
  return db
    .selectFrom("events")
    .select(EVENT)
    .where("business_id", "=", businessId)
    .where("type", "=", type)
    .orderBy("sequence", "desc")
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The deliveries of these events, to every endpoint. */
export async function deliveriesOf(db: Executor, eventIds: readonly string[]) {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom("webhook_deliveries")
    .select(DELIVERY)
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
