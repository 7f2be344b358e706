import { sql } from "kysely";
import type { ChainRules } from "../core/delivery-chain.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { Executor } from "./executor.js";

/**
 * Schedules the chain's first unscheduled delivery, due `now` (ChainRules.unscheduled). Call in the
 * transaction that settled the delivery before it. Should two of a chain be scheduled and due at
 * once, the claim still takes them in sequence order. Given a `lease`, the delivery is also
 * leased with it: handed to the process that settled its predecessor, which attempts it at once,
 * so a chain moves at its receiver's pace rather than the claim loop's. Its id, when there was
 * one to schedule.
 */
export async function scheduleNextInChain(
  db: Executor,
  dialect: DeliveryDialect<Executor>,
  chain: ChainRules,
  endpointId: string,
  accountNumber: string,
  now: string,
  lease?: string,
): Promise<string | undefined> {
  await dialect.lockChains(db, [endpointId], accountNumber);
  const next = await db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("endpoint_id", "=", endpointId)
    .where("account_number", "=", accountNumber)
    .where("state", "=", sql.lit("pending"))
    .where("next_attempt_at", "=", chain.unscheduled)
    .orderBy("sequence")
    .limit(1)
    .executeTakeFirst();
  if (!next) return undefined;
  await db
    .updateTable("webhook_deliveries")
    .set(lease === undefined ? { next_attempt_at: now } : { next_attempt_at: now, lease_until: lease })
    .where("id", "=", next.id)
    .execute();
  return next.id;
}

/**
 * Due deliveries nobody holds, oldest due first, for this process to lease: concurrent claimers
 * take different rows (DeliveryDialect.claiming). Call inside a write transaction, then leaseDeliveries.
 * Left out: deliveries to a paused endpoint, and, when the chain keeps order, any delivery while
 * an earlier event of the same account is due (or in flight) for the same endpoint. Each in the
 * domain's names, with its endpoint's run of failures and its deliveries leased now (`inFlight`).
 */
export async function dueDeliveries(
  db: Executor,
  dialect: DeliveryDialect<Executor>,
  chain: ChainRules,
  now: string,
  limit: number,
) {
  let query = db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as w", "w.id", "d.endpoint_id")
    .select(["d.id", "d.endpoint_id as endpointId", "w.consecutive_failures as consecutiveFailures"])
    .where("d.state", "=", "pending")
    .where("d.next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("d.lease_until", "is", null), eb("d.lease_until", "<", now)]))
    .where((eb) => eb.or([eb("w.paused_until", "is", null), eb("w.paused_until", "<=", now)]))
    .orderBy("d.next_attempt_at")
    .orderBy("d.sequence")
    .limit(limit);
  if (chain.inOrder) {
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("webhook_deliveries as e")
            .select("e.id")
            .whereRef("e.endpoint_id", "=", "d.endpoint_id")
            .whereRef("e.account_number", "=", "d.account_number")
            .whereRef("e.sequence", "<", "d.sequence")
            .where("e.state", "=", sql.lit("pending"))
            .where("e.next_attempt_at", "<=", now),
        ),
      ),
    );
  }
  const rows = await dialect.claiming(query).execute();
  if (rows.length === 0) return [];
  // What each endpoint has in flight: one read of the few leased rows, not one per candidate.
  const leased = await leasedPerEndpoint(db, now).execute();
  const inFlight = new Map(leased.map((row) => [row.endpoint_id, Number(row.n)]));
  return rows.map((row) => ({ ...row, inFlight: inFlight.get(row.endpointId) ?? 0 }));
}

/**
 * Each endpoint's deliveries leased now: an index range over the leased rows alone
 * (webhook_deliveries_leased_idx, migration 0034), however deep the backlog.
 */
export function leasedPerEndpoint(db: Executor, now: string) {
  return db
    .selectFrom("webhook_deliveries")
    .select((eb) => ["endpoint_id", eb.fn.countAll<number>().as("n")])
    .where("state", "=", "pending")
    .where("lease_until", ">=", now)
    .groupBy("endpoint_id");
}

export async function leaseDeliveries(db: Executor, ids: readonly string[], until: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable("webhook_deliveries").set({ lease_until: until }).where("id", "in", ids).execute();
}

/** Leased deliveries with their events and endpoints: what their attempts need, in the domain's names. */
export function deliveryContexts(db: Executor, ids: readonly string[]) {
  return db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("events as e", "e.id", "d.event_id")
    .innerJoin("webhook_endpoints as w", "w.id", "d.endpoint_id")
    .select([
      "d.id",
      "d.state",
      "d.attempts",
      "d.lease_until as leaseUntil",
      "e.id as eventId",
      "e.type",
      "e.data",
      "e.created_at as eventCreatedAt",
      "e.sequence",
      "e.account_number as accountNumber",
      "w.id as endpointId",
    ])
    .where("d.id", "in", [...ids])
    .execute();
}

/** Records the outcome of an attempt (in the domain's names), only while this process still holds the lease. */
export async function settleDelivery(
  db: Executor,
  id: string,
  lease: string,
  outcome: {
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
    /** Left out: still pending, due again at `nextAttemptAt`. */
    state?: "delivered" | "failed";
    deliveredAt?: string;
    nextAttemptAt?: string;
  },
): Promise<boolean> {
  const result = await db
    .updateTable("webhook_deliveries")
    .set({
      attempts: outcome.attempts,
      last_status: outcome.lastStatus,
      last_error: outcome.lastError,
      // The query builder skips undefined: a field left out is a column left as it is.
      state: outcome.state,
      delivered_at: outcome.deliveredAt,
      next_attempt_at: outcome.nextAttemptAt,
      lease_until: null,
    })
    .where("id", "=", id)
    .where("lease_until", "=", lease)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives leases back (a process stopping with deliveries it never started). */
export async function releaseLeases(db: Executor, ids: readonly string[], lease: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("webhook_deliveries")
    .set({ lease_until: null })
    .where("id", "in", ids)
    .where("lease_until", "=", lease)
    .execute();
}

/**
 * Queues the events (of one business, created at or after `since`, of these types or any) for
 * delivery to one endpoint again: a new pending delivery where there was none, and one in a state
 * the chain reopens made pending and due now.
 * One statement, whatever the number of events. Returns how many were queued.
 */
export async function requeueDeliveries(
  db: Executor,
  dialect: DeliveryDialect<Executor>,
  chain: ChainRules,
  target: {
    businessId: string;
    endpointId: string;
    eventId?: string;
    since?: string;
    types: readonly string[] | null;
  },
  now: string,
): Promise<number> {
  let events = db
    .selectFrom("events")
    .select((eb) => [
      sql.raw<string>(dialect.deliveryIdSql).as("id"),
      "events.id as event_id",
      eb.val(target.endpointId).as("endpoint_id"),
      "events.business_id",
      "events.sequence",
      "events.account_number",
      eb.val("pending").as("state"),
      eb.val(0).as("attempts"),
      eb.val(now).as("next_attempt_at"),
      eb.val(now).as("created_at"),
    ])
    .where("events.business_id", "=", target.businessId);
  if (target.eventId !== undefined) events = events.where("events.id", "=", target.eventId);
  if (target.since !== undefined) events = events.where("events.created_at", ">=", target.since);
  if (target.types !== null) events = events.where("events.type", "in", [...target.types]);
  const result = await db
    .insertInto("webhook_deliveries")
    .columns([
      "id",
      "event_id",
      "endpoint_id",
      "business_id",
      "sequence",
      "account_number",
      "state",
      "attempts",
      "next_attempt_at",
      "created_at",
    ])
    .expression(events)
    .onConflict((oc) =>
      oc
        .columns(["event_id", "endpoint_id"])
        .doUpdateSet({ state: "pending", next_attempt_at: now, lease_until: null, delivered_at: null })
        .where("webhook_deliveries.state", "in", [...chain.reopened]),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Makes these pending deliveries due `at` (a redelivery asked while their retry waits), those no
 * process holds at `now`: one in flight is left to its attempt. Returns how many were moved.
 */
export async function rescheduleDeliveries(
  db: Executor,
  ids: readonly string[],
  at: string,
  now: string,
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable("webhook_deliveries")
    .set({ next_attempt_at: at })
    .where("id", "in", [...ids])
    .where("state", "=", sql.lit("pending"))
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Moves the endpoint's due and soon-due deliveries to `until` together (a paused endpoint). */
export async function deferEndpointDeliveries(
  db: Executor,
  endpointId: string,
  until: string,
): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({ next_attempt_at: until })
    .where("endpoint_id", "=", endpointId)
    .where("state", "=", "pending")
    .where("next_attempt_at", "<", until)
    .where("lease_until", "is", null)
    .execute();
}
