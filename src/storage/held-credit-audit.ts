import { sql } from "kysely";
import type { Executor } from "./executor.js";

// What `vas ledger verify` reads of held credits (issue 46, item 6), credit by credit: each
// acceptance's posting, what is held now, each return's refund. ledger-audit/held-credits.ts
// compares; nothing here decides what is right.

/** The kobo an entry set moved on ledger accounts of `kind`. */
const movedOn = (kind: string) =>
  sql<number>`coalesce(sum(case when a.kind = ${kind} then e.amount else 0 end), 0)`;

/**
 * Each accepted held credit with what its decision says (amount, fee, charges) and what the
 * entries of its posting (`posting_id`) moved: their count and sum, and per ledger account kind.
 */
export function acceptancePostings(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("held_credits as h")
    .innerJoin("transactions as t", "t.id", "h.transaction_id")
    .leftJoin("ledger_entries as e", "e.transaction_id", "h.posting_id")
    .leftJoin("ledger_accounts as a", "a.id", "e.ledger_account_id")
    .select((eb) => [
      "h.transaction_id",
      "h.posting_id",
      "t.amount",
      "h.fee",
      "h.vat",
      "h.stamp_duty",
      eb.fn.count<number>("e.sequence").as("entries"),
      eb.fn.coalesce(eb.fn.sum<number>("e.amount"), sql<number>`0`).as("sum"),
      movedOn("held").as("held"),
      movedOn("available").as("available"),
      movedOn("revenue").as("revenue"),
      movedOn("vat_payable").as("vat_payable"),
      movedOn("stamp_duty_payable").as("stamp_duty_payable"),
      // Entries of another business's ledger: a posting is one business's.
      sql<number>`coalesce(sum(case when a.business_id != h.business_id then 1 else 0 end), 0)`.as("foreign"),
    ])
    .where("h.state", "=", "accepted")
    .groupBy(["h.transaction_id", "h.posting_id", "t.amount", "h.fee", "h.vat", "h.stamp_duty"])
    .orderBy("h.transaction_id");
  if (businessId !== undefined) query = query.where("h.business_id", "=", businessId);
  return query.execute();
}

/**
 * Per business, the credits held now: those that came in held with no decision, or held again
 * after a return the bank did not make; their count and amounts.
 */
export function creditsHeldNow(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("transactions as t")
    .leftJoin("held_credits as h", "h.transaction_id", "t.id")
    .select((eb) => [
      "t.business_id",
      eb.fn.count<number>("t.id").as("count"),
      eb.fn.sum<number>("t.amount").as("amount"),
    ])
    .where("t.status", "=", "held")
    .where((eb) => eb.or([eb("h.transaction_id", "is", null), eb("h.state", "=", "held")]))
    .groupBy("t.business_id");
  if (businessId !== undefined) query = query.where("t.business_id", "=", businessId);
  return query.execute();
}

/** Each returned held credit with the payout its decision names (null columns when there is none). */
export function heldReturns(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("held_credits as h")
    .innerJoin("transactions as t", "t.id", "h.transaction_id")
    .leftJoin("payouts as p", "p.id", "h.refund_id")
    .select([
      "h.transaction_id",
      "h.refund_id",
      "t.amount",
      "p.id as payout_id",
      "p.status",
      "p.source",
      "p.amount as payout_amount",
      "p.refund_of",
    ])
    .where("h.state", "=", "returned")
    .orderBy("h.transaction_id");
  if (businessId !== undefined) query = query.where("h.business_id", "=", businessId);
  return query.execute();
}
