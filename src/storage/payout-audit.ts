import { sql } from "kysely";
import type { Executor } from "./executor.js";

// What `vas ledger verify` reads of payouts (ledger-audit/verify.ts recomputes and compares).

/** Per business and status: its payouts' amounts and fees (what the ledger must show of them is the domain's). */
export function payoutTotals(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("payouts")
    .select((eb) => [
      "business_id",
      "status",
      "source",
      eb.fn.sum<number>("amount").as("amount"),
      eb.fn.sum<number>("fee").as("fee"),
      eb.fn.sum<number>("vat").as("vat"),
      eb.fn.sum<number>("stamp_duty").as("stamp_duty"),
    ])
    .groupBy(["business_id", "status", "source"]);
  if (businessId !== undefined) query = query.where("business_id", "=", businessId);
  return query.execute();
}

/** Each payout's postings, in payout and step order (verify checks them against its status). */
export function payoutPostingsToVerify(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("payouts as p")
    .leftJoin("payout_postings as s", "s.payout_id", "p.id")
    .select(["p.id", "p.status", "s.phase", "s.step"])
    .orderBy("p.id")
    .orderBy("s.step");
  if (businessId !== undefined) query = query.where("p.business_id", "=", businessId);
  return query.execute();
}

/** Payout postings whose entries do not sum to zero, or that have none. */
export function unbalancedPayoutPostings(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("payout_postings as s")
    .leftJoin("ledger_entries as e", "e.transaction_id", "s.id")
    .select((eb) => [
      "s.id",
      eb.fn.coalesce(eb.fn.sum<number>("e.amount"), sql<number>`0`).as("sum"),
      eb.fn.count<number>("e.sequence").as("entries"),
    ])
    .groupBy("s.id")
    .having((eb) => eb.or([eb(eb.fn.count("e.sequence"), "=", 0), eb(eb.fn.sum("e.amount"), "!=", 0)]));
  if (businessId !== undefined) query = query.where("s.business_id", "=", businessId);
  return query.execute();
}

/** Ledger entries whose posting is neither a transaction, a payout's posting, a held credit's acceptance nor a block's move. */
export function entriesWithoutPosting(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("ledger_entries as e")
    .leftJoin("transactions as t", "t.id", "e.transaction_id")
    .leftJoin("payout_postings as s", "s.id", "e.transaction_id")
    .leftJoin("held_credits as h", "h.posting_id", "e.transaction_id")
    .leftJoin("credit_blocks as b", "b.id", "e.transaction_id")
    .leftJoin("credit_blocks as r", "r.release_posting_id", "e.transaction_id")
    .select(["e.ledger_account_id", "e.sequence", "e.transaction_id"])
    .where("t.id", "is", null)
    .where("s.id", "is", null)
    .where("h.posting_id", "is", null)
    .where("b.id", "is", null)
    .where("r.id", "is", null)
    .limit(1000);
  if (businessId !== undefined) query = query.where("e.business_id", "=", businessId);
  return query.execute();
}
