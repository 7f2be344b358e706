import { sql } from "kysely";
import type { LedgerCheckpoint } from "../core/ledger-checkpoint.js";
import type { Executor } from "./executor.js";
import { checkpointOf } from "./ledger-checkpoints.js";

// What `vas ledger verify` reads: the ledger's rows as stored, optionally of one business, in
// pages where they can be many. Nothing here trusts a stored balance; src/ledger/verify.ts
// recomputes and compares.

/** Ledger accounts (of one business, or all), in id order. */
export function ledgerAccountsToVerify(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("ledger_accounts")
    .select(["id", "business_id", "kind", "balance", "entry_count", "last_hash"])
    .orderBy("id");
  if (businessId !== undefined) query = query.where("business_id", "=", businessId);
  return query.execute();
}

/** Up to `limit` of an account's entries after `afterSequence`, in sequence order (a primary-key range). */
export function entriesAfter(db: Executor, ledgerAccountId: string, afterSequence: number, limit: number) {
  return db
    .selectFrom("ledger_entries")
    .selectAll()
    .where("ledger_account_id", "=", ledgerAccountId)
    .where("sequence", ">", afterSequence)
    .orderBy("sequence")
    .limit(limit)
    .execute();
}

/** Transactions whose entries do not sum to zero, or that have none. */
export function unbalancedTransactions(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("transactions as t")
    .leftJoin("ledger_entries as e", "e.transaction_id", "t.id")
    .select((eb) => [
      "t.id",
      eb.fn.coalesce(eb.fn.sum<number>("e.amount"), sql<number>`0`).as("sum"),
      eb.fn.count<number>("e.sequence").as("entries"),
    ])
    .groupBy("t.id")
    .having((eb) => eb.or([eb(eb.fn.count("e.sequence"), "=", 0), eb(eb.fn.sum("e.amount"), "!=", 0)]));
  if (businessId !== undefined) query = query.where("t.business_id", "=", businessId);
  return query.execute();
}

/**
 * Per business: the sums of its transactions' amounts, fees, charges and nets, their count and
 * highest ordinal; the nets of those credited as they came (`net`), and the amounts of those that
 * came in held (`held`: issue 46, their acceptance or return is in held_credits).
 */
export function transactionTotals(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("transactions")
    .select((eb) => [
      "business_id",
      eb.fn.sum<number>("amount").as("amount"),
      eb.fn.sum<number>("fee").as("fee"),
      eb.fn.sum<number>("vat").as("vat"),
      eb.fn.sum<number>("stamp_duty").as("stamp_duty"),
      sql<number>`sum(case when status = 'held' then 0 else net_amount end)`.as("net"),
      sql<number>`sum(case when status = 'held' then amount else 0 end)`.as("held"),
      eb.fn.count<number>("id").as("count"),
      eb.fn.max<number>("ordinal").as("max_ordinal"),
    ])
    .groupBy("business_id");
  if (businessId !== undefined) query = query.where("business_id", "=", businessId);
  return query.execute();
}

/** Transactions whose own arithmetic is wrong: net is not amount less fee and charges. */
export function miscomputedTransactions(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("transactions")
    .select(["id", "amount", "fee", "vat", "stamp_duty", "net_amount"])
    .where(sql<boolean>`net_amount != amount - fee - vat - stamp_duty`);
  if (businessId !== undefined) query = query.where("business_id", "=", businessId);
  return query.execute();
}

/**
 * Transactions whose `balance_after` is not the balance after their last entry on the
 * business's available account.
 */
export function transactionsWithWrongBalanceAfter(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("transactions as t")
    .innerJoin("ledger_entries as e", (join) =>
      join
        .onRef("e.transaction_id", "=", "t.id")
        .on("e.ledger_account_id", "=", sql<string>`t.business_id || ':available'`),
    )
    .select(["t.id", "t.balance_after", "e.balance_after as entry_balance_after"])
    .where("e.sequence", "=", (eb) =>
      eb
        .selectFrom("ledger_entries as l")
        .select((b) => b.fn.max("l.sequence").as("sequence"))
        .whereRef("l.transaction_id", "=", "t.id")
        .whereRef("l.ledger_account_id", "=", "e.ledger_account_id"),
    )
    .whereRef("t.balance_after", "!=", "e.balance_after");
  if (businessId !== undefined) query = query.where("t.business_id", "=", businessId);
  return query.execute();
}

/** Accounts whose running totals (received, transfer count) disagree with their transactions. */
export function accountsWithWrongTotals(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("accounts as a")
    .leftJoin("transactions as t", "t.account_id", "a.id")
    .select((eb) => [
      "a.id",
      "a.total_received",
      "a.transfer_count",
      // A credit that came in held is received once it is accepted (issue 46).
      sql<number>`coalesce(sum(case when t.status = 'held' then 0 else t.amount end), 0)`.as("sum"),
      eb.fn.count<number>("t.id").as("count"),
    ])
    .groupBy(["a.id", "a.total_received", "a.transfer_count"])
    .having((eb) =>
      eb.or([
        eb(
          sql`coalesce(sum(case when t.status = 'held' then 0 else t.amount end), 0)`,
          "!=",
          eb.ref("a.total_received"),
        ),
        eb(eb.fn.count("t.id"), "!=", eb.ref("a.transfer_count")),
      ]),
    );
  if (businessId !== undefined) query = query.where("a.business_id", "=", businessId);
  return query.execute();
}

/** A ledger account's checkpoints, oldest position first. */
export async function checkpointsOf(db: Executor, ledgerAccountId: string): Promise<LedgerCheckpoint[]> {
  const rows = await db
    .selectFrom("ledger_checkpoints")
    .selectAll()
    .where("ledger_account_id", "=", ledgerAccountId)
    .orderBy("entry_count")
    .execute();
  return rows.map(checkpointOf);
}

/** Checkpoints whose ledger account row is gone (only possible with the constraints bypassed). */
export function checkpointsWithoutLedgerAccount(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("ledger_checkpoints as c")
    .leftJoin("ledger_accounts as a", "a.id", "c.ledger_account_id")
    .selectAll("c")
    .where("a.id", "is", null)
    .orderBy("c.ledger_account_id")
    .orderBy("c.entry_count");
  if (businessId !== undefined) query = query.where("c.business_id", "=", businessId);
  return query.execute();
}
