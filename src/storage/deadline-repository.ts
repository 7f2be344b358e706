import { sql } from "kysely";
import type { DeadlineMissRecord } from "../core/deadline-miss.js";
import type { Executor } from "./executor.js";

// What the deadlines' watch (reconciliation/deadline-watch.ts) reads and writes, in its names:
// the credits recorded since each business's mark, the postings that gave a payout's money back,
// the pending payouts held before a time, and the misses it found (each once).

/** The scope of the returns' scan in deadline_scans (a business's id is its credits' scope). */
const RETURNS_SCOPE = "returns";

/**
 * The businesses with credits recorded past their mark: each one's mark and its last ordinal, the
 * last read from the end of its (business, ordinal) key, one probe a business in one statement.
 * Nothing is read or written on the transfer's path.
 */
export async function creditsPending(db: Executor): Promise<{ businessId: string; through: number }[]> {
  const rows = await db
    .selectFrom("businesses as b")
    .leftJoin("deadline_scans as s", "s.scope", "b.id")
    .select((eb) => [
      "b.id as businessId",
      eb.fn.coalesce("s.through_ordinal", sql<number>`0`).as("through"),
      eb
        .selectFrom("transactions as t")
        .select("t.ordinal")
        .whereRef("t.business_id", "=", "b.id")
        .orderBy("t.ordinal", "desc")
        .limit(1)
        .as("last"),
    ])
    .execute();
  return rows
    .filter((row) => row.last !== null && Number(row.last) > Number(row.through))
    .map((row) => ({ businessId: row.businessId, through: Number(row.through) }));
}

/** Up to `limit` of the business's credits past ordinal `after`, in order: a range of its key. */
export function creditsAfter(db: Executor, businessId: string, after: number, limit: number) {
  return db
    .selectFrom("transactions")
    .select([
      "id",
      "business_id as businessId",
      "session_id as sessionId",
      "amount",
      "value_at as paidAt",
      "created_at as appliedAt",
      "ordinal",
    ])
    .where("business_id", "=", businessId)
    .where("ordinal", ">", after)
    .orderBy("ordinal")
    .limit(limit)
    .execute();
}

/** Moves a business's credits mark forward to `through` (never back: another process may be ahead). */
export async function markCredits(db: Executor, businessId: string, through: number): Promise<void> {
  await db
    .insertInto("deadline_scans")
    .values({ scope: businessId, through_ordinal: through, through_at: null })
    .onConflict((oc) =>
      oc
        .column("scope")
        .doUpdateSet((eb) => ({ through_ordinal: eb.ref("excluded.through_ordinal") }))
        .where("deadline_scans.through_ordinal", "<", through),
    )
    .execute();
}

/** How far the returns' scan has read: the last posting's time and id (undefined: from the start). */
export async function returnsMark(db: Executor): Promise<{ at: string; id: string } | undefined> {
  const row = await db
    .selectFrom("deadline_scans")
    .select("through_at")
    .where("scope", "=", RETURNS_SCOPE)
    .executeTakeFirst();
  if (!row?.through_at) return undefined;
  const [at = "", id = ""] = row.through_at.split(" ");
  return { at, id };
}

/** Moves the returns' mark forward to a posting's time and id (never back). */
export async function markReturns(db: Executor, mark: { at: string; id: string }): Promise<void> {
  const through = `${mark.at} ${mark.id}`;
  await db
    .insertInto("deadline_scans")
    .values({ scope: RETURNS_SCOPE, through_ordinal: 0, through_at: through })
    .onConflict((oc) =>
      oc
        .column("scope")
        .doUpdateSet((eb) => ({ through_at: eb.ref("excluded.through_at") }))
        .where((eb) =>
          eb.or([eb("deadline_scans.through_at", "is", null), eb("deadline_scans.through_at", "<", through)]),
        ),
    )
    .execute();
}

/**
 * The postings that gave a payout's money back (its void, or its reversal) after `after` (by time
 * and id), oldest first, with the payout and its hold's time; the partial index reads only them.
 */
export function returnsAfter(db: Executor, after: { at: string; id: string } | undefined, limit: number) {
  let query = db
    .selectFrom("payout_postings as r")
    .innerJoin("payout_postings as h", (join) =>
      join.onRef("h.payout_id", "=", "r.payout_id").on("h.step", "=", 1),
    )
    .innerJoin("payouts as p", "p.id", "r.payout_id")
    .select([
      "r.id as postingId",
      "p.id as payoutId",
      "p.business_id as businessId",
      "p.amount as amount",
      "p.reference as reference",
      "p.session_id as sessionId",
      "p.status as status",
      "h.created_at as heldAt",
      "r.created_at as returnedAt",
    ])
    .where("r.phase", "in", ["void", "reversal"]);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("r.created_at", ">", after.at),
        eb.and([eb("r.created_at", "=", after.at), eb("r.id", ">", after.id)]),
      ]),
    );
  }
  return query.orderBy("r.created_at").orderBy("r.id").limit(limit).execute();
}

/**
 * Pending payouts held before `before` (after `after`, by hold time and id), oldest first: their
 * money is neither paid nor back.
 */
export function pendingHeldBefore(
  db: Executor,
  before: string,
  after: { at: string; id: string } | undefined,
  limit: number,
) {
  let query = db
    .selectFrom("payouts")
    .select([
      "id as payoutId",
      "business_id as businessId",
      "amount",
      "reference",
      "session_id as sessionId",
      "status",
      "created_at as heldAt",
    ])
    .where("status", "=", "pending")
    .where("created_at", "<", before);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("created_at", ">", after.at),
        eb.and([eb("created_at", "=", after.at), eb("id", ">", after.id)]),
      ]),
    );
  }
  return query.orderBy("created_at").orderBy("id").limit(limit).execute();
}

/** Records misses not recorded before; answers the ids of those this call recorded (the alert's once). */
export async function recordMisses(
  db: Executor,
  misses: readonly DeadlineMissRecord[],
): Promise<Set<string>> {
  if (misses.length === 0) return new Set();
  const rows = await db
    .insertInto("deadline_misses")
    .values(
      misses.map((miss) => ({
        kind: miss.kind,
        item_id: miss.itemId,
        business_id: miss.businessId,
        amount: miss.amount,
        session_id: miss.sessionId,
        reference: miss.reference,
        status: miss.status,
        started_at: miss.startedAt,
        ended_at: miss.endedAt,
        found_at: miss.foundAt,
      })),
    )
    .onConflict((oc) => oc.columns(["kind", "item_id"]).doNothing())
    .returning("item_id")
    .execute();
  return new Set(rows.map((row) => row.item_id));
}

/** A payout's money found back: its at-risk miss gets the time (false: it had none open). */
export async function closeReturn(
  db: Executor,
  payoutId: string,
  back: { endedAt: string; status: string; sessionId: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable("deadline_misses")
    // Found at risk before the bank gave the transfer a session id: it is known now.
    .set((eb) => ({
      ended_at: back.endedAt,
      status: back.status,
      session_id: eb.fn.coalesce("session_id", eb.val(back.sessionId)),
    }))
    .where("kind", "=", "return")
    .where("item_id", "=", payoutId)
    .where("ended_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The status of an at-risk miss whose payout was paid after all (not listed, not counted). */
const PAID = "paid";

/**
 * At-risk misses whose payout was paid after all (successful: its money went where it was sent,
 * nothing is owed back) are put aside as `paid`, out of every list and count, and kept: a later
 * reversal closes the same miss (no second alert); answers how many.
 */
export async function setPaidRisksAside(db: Executor): Promise<number> {
  const result = await db
    .updateTable("deadline_misses")
    .set({ status: PAID })
    .where("kind", "=", "return")
    .where("ended_at", "is", null)
    .where("status", "!=", PAID)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("payouts as p")
          .select("p.id")
          .whereRef("p.id", "=", "deadline_misses.item_id")
          .where("p.status", "=", "successful"),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Which misses of a kind: all, only those over (ended), or only those still open (at risk). */
type MissState = "all" | "ended" | "open";

/** How many misses of `kind` there are in `state`. */
export async function countMisses(
  db: Executor,
  kind: "credit" | "return",
  state: MissState,
): Promise<number> {
  const row = await missesOf(db, kind, state)
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** A page of misses of `kind` in `state`, the latest found first, in the watch's names. */
export function missPage(
  db: Executor,
  kind: "credit" | "return",
  state: MissState,
  offset: number,
  limit: number,
) {
  return missesOf(db, kind, state)
    .select([
      "kind",
      "item_id as itemId",
      "business_id as businessId",
      "amount",
      "session_id as sessionId",
      "reference",
      "status",
      "started_at as startedAt",
      "ended_at as endedAt",
      "found_at as foundAt",
    ])
    .orderBy("found_at", "desc")
    .orderBy("item_id", "desc")
    .offset(offset)
    .limit(limit)
    .execute();
}

function missesOf(db: Executor, kind: "credit" | "return", state: MissState) {
  let query = db.selectFrom("deadline_misses").where("kind", "=", kind).where("status", "!=", PAID);
  if (state === "ended") query = query.where("ended_at", "is not", null);
  if (state === "open") query = query.where("ended_at", "is", null);
  return query;
}
