import { sql } from "kysely";
import type { HeldCreditRecord } from "../ledger/ledger-records.js";
import type { Executor } from "./executor.js";

// Held credits' decisions (issue 46, item 6; migration 0045): read and written under the
// business's ledger locks (payout-writes.ts's transaction), so two decisions on one credit take
// turns and the second reads the first's.

/** The decision on a held credit, if there is one yet. */
export function findHeldCredit(db: Executor, transactionId: string): Promise<HeldCreditRecord | undefined> {
  return db
    .selectFrom("held_credits")
    .selectAll()
    .where("transaction_id", "=", transactionId)
    .executeTakeFirst();
}

/** The decisions on these transactions, by transaction id (those without one are still held, or never were). */
export async function heldCreditsOf(
  db: Executor,
  transactionIds: readonly string[],
): Promise<Map<string, HeldCreditRecord>> {
  if (transactionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("held_credits")
    .selectAll()
    .where("transaction_id", "in", [...transactionIds])
    .execute();
  return new Map(rows.map((row) => [row.transaction_id, row]));
}

/**
 * Per business, what its accepted held credits moved (`vas ledger verify`): their amounts (out of
 * held), nets (into available), fees and charges.
 */
export function acceptedHeldTotals(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("held_credits as h")
    .innerJoin("transactions as t", "t.id", "h.transaction_id")
    .select((eb) => [
      "h.business_id",
      eb.fn.sum<number>("t.amount").as("amount"),
      eb.fn.sum<number>("h.fee").as("fee"),
      eb.fn.sum<number>("h.vat").as("vat"),
      eb.fn.sum<number>("h.stamp_duty").as("stamp_duty"),
      sql<number>`sum(t.amount - h.fee - h.vat - h.stamp_duty)`.as("net"),
    ])
    .where("h.state", "=", "accepted")
    .groupBy("h.business_id");
  if (businessId !== undefined) query = query.where("h.business_id", "=", businessId);
  return query.execute();
}

/** The business's fee schedule, as an acceptance charges it (read under the ledger's locks). */
export async function feeScheduleOf(db: Executor, businessId: string) {
  const row = await db
    .selectFrom("businesses")
    .select(["fee_basis_points", "fee_cap_kobo"])
    .where("id", "=", businessId)
    .executeTakeFirstOrThrow();
  return {
    basisPoints: Number(row.fee_basis_points),
    capKobo: row.fee_cap_kobo === null ? null : Number(row.fee_cap_kobo),
  };
}

/**
 * Up to `limit` credits that came in held before `before` and are held still (no decision, or held
 * again after a return the bank did not make): the oldest first, for the job that returns them.
 */
export function expiredHeldCredits(db: Executor, before: string, limit: number) {
  return db
    .selectFrom("transactions as t")
    .leftJoin("held_credits as h", "h.transaction_id", "t.id")
    .select(["t.id", "t.business_id"])
    .where("t.status", "=", "held")
    .where("t.created_at", "<", before)
    .where((eb) => eb.or([eb("h.transaction_id", "is", null), eb("h.state", "=", "held")]))
    .orderBy("t.created_at")
    .limit(limit)
    .execute();
}
