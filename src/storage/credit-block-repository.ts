import type { CreditBlockRecord, ListedBlock, TransactionRecord } from "../ledger/ledger-records.js";
import type { Executor } from "./executor.js";

// Operators' blocks on disputed credits (issue 46, item 7; migration 0046): read under the
// business's ledger locks when a block is made, released or returned (payout-writes.ts's
// transaction), so two moves of one block take turns and the second reads the first's.

/** A block by its id. */
export function findCreditBlock(db: Executor, id: string): Promise<CreditBlockRecord | undefined> {
  return db.selectFrom("credit_blocks").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The block a refund returns, if it returns one. */
export function blockReturnedBy(db: Executor, refundId: string): Promise<CreditBlockRecord | undefined> {
  return db.selectFrom("credit_blocks").selectAll().where("refund_id", "=", refundId).executeTakeFirst();
}

/** The kobo of these transactions' blocks standing now (`blocked`; but the block `except`), by transaction id. */
export async function blockedAmounts(
  db: Executor,
  transactionIds: readonly string[],
  except?: string,
): Promise<Map<string, number>> {
  if (transactionIds.length === 0) return new Map();
  let query = db
    .selectFrom("credit_blocks")
    .select((eb) => ["transaction_id", eb.fn.sum<number>("amount").as("blocked")])
    .where("transaction_id", "in", [...transactionIds])
    .where("state", "=", "blocked");
  if (except !== undefined) query = query.where("id", "!=", except);
  const rows = await query.groupBy("transaction_id").execute();
  return new Map(rows.map((row) => [row.transaction_id, Number(row.blocked)]));
}

/** A transaction's blocks, the newest first (the dashboard's transaction page, the console). */
export function blocksOf(db: Executor, transactionId: string): Promise<CreditBlockRecord[]> {
  return db
    .selectFrom("credit_blocks")
    .selectAll()
    .where("transaction_id", "=", transactionId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** Blocks, the newest first: those in `state` (all when undefined), of one business or all. */
export async function listCreditBlocks(
  db: Executor,
  filter: { state?: CreditBlockRecord["state"]; businessId?: string; limit: number },
): Promise<ListedBlock[]> {
  let query = db
    .selectFrom("credit_blocks as b")
    .innerJoin("transactions as t", "t.id", "b.transaction_id")
    .selectAll("b")
    .select(["t.account_number", "t.session_id", "t.amount as credit_amount"]);
  if (filter.state !== undefined) query = query.where("b.state", "=", filter.state);
  if (filter.businessId !== undefined) query = query.where("b.business_id", "=", filter.businessId);
  const rows = await query
    .orderBy("b.created_at", "desc")
    .orderBy("b.id", "desc")
    .limit(filter.limit)
    .execute();
  return rows.map((row) => ({
    ...row,
    amount: Number(row.amount),
    credit_amount: Number(row.credit_amount),
  }));
}

/**
 * Per business, what its blocks moved (`vas ledger verify`): `placed`, every block's amount (into
 * held out of available), and `released`, those released (back). A return's move is its refund's.
 */
export function blockTotals(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("credit_blocks")
    .select((eb) => [
      "business_id",
      eb.fn.sum<number>("amount").as("placed"),
      eb.fn
        .sum<number>(eb.case().when("state", "=", "released").then(eb.ref("amount")).else(0).end())
        .as("released"),
    ])
    .groupBy("business_id");
  if (businessId !== undefined) query = query.where("business_id", "=", businessId);
  return query.execute();
}

/** Per business, its blocks standing now: their count and kobo (`vas ledger verify`: held besides the credits held). */
export function standingBlocks(db: Executor, businessId?: string) {
  let query = db
    .selectFrom("credit_blocks")
    .select((eb) => [
      "business_id",
      eb.fn.count<number>("id").as("count"),
      eb.fn.sum<number>("amount").as("amount"),
    ])
    .where("state", "=", "blocked")
    .groupBy("business_id");
  if (businessId !== undefined) query = query.where("business_id", "=", businessId);
  return query.execute();
}

/** A credit by its transaction id or its session id, whichever business's (the operator's look-up). */
export function creditOf(
  db: Executor,
  key: { id: string } | { sessionId: string },
): Promise<TransactionRecord | undefined> {
  const query = db.selectFrom("transactions").selectAll();
  return (
    "id" in key ? query.where("id", "=", key.id) : query.where("session_id", "=", key.sessionId)
  ).executeTakeFirst();
}
