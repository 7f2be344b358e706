import assert from "node:assert/strict";
import type { Kysely } from "kysely";
import { entryHash, GENESIS_HASH } from "../../src/ledger/posting.js";
import { ledgerAccountTotals, unbalancedTransactions } from "../../src/storage/ledger-repository.js";
import type { Database } from "../../src/storage/schema.js";

/**
 * The ledger's invariants, read back from the database: every transaction's entries sum to
 * zero; every ledger account's balance and entry count equal its entries' sum and count; every
 * chain recomputes; each business's accounts agree with its transactions; each account's
 * totals agree with its transactions.
 */
export async function assertLedgerInvariants(db: Kysely<Database>): Promise<void> {
  assert.deepEqual(await unbalancedTransactions(db), [], "every transaction sums to zero");
  for (const account of await ledgerAccountTotals(db)) {
    assert.equal(Number(account.sum), Number(account.balance), `${account.id}: balance = sum of entries`);
    assert.equal(Number(account.entries), Number(account.entry_count), `${account.id}: entry count`);
  }
  const entries = await db
    .selectFrom("ledger_entries")
    .selectAll()
    .orderBy("ledger_account_id")
    .orderBy("sequence")
    .execute();
  let previous = { account: "", hash: GENESIS_HASH, sequence: 0, balance: 0 };
  for (const entry of entries) {
    if (entry.ledger_account_id !== previous.account) {
      previous = { account: entry.ledger_account_id, hash: GENESIS_HASH, sequence: 0, balance: 0 };
    }
    const where = `${entry.ledger_account_id}#${entry.sequence}`;
    assert.equal(entry.sequence, previous.sequence + 1, `${where}: sequences are dense`);
    assert.equal(entry.previous_hash, previous.hash, `${where}: chained to the entry before`);
    const balanceAfter = previous.balance + Number(entry.amount);
    assert.equal(Number(entry.balance_after), balanceAfter, `${where}: balance after`);
    const hash = entryHash(previous.hash, {
      ledgerAccountId: entry.ledger_account_id,
      sequence: entry.sequence,
      transactionId: entry.transaction_id,
      amount: Number(entry.amount),
      balanceAfter,
      createdAt: entry.created_at,
    });
    assert.equal(entry.hash, hash, `${where}: hash`);
    previous = { account: entry.ledger_account_id, hash, sequence: entry.sequence, balance: balanceAfter };
  }
  const byBusiness = await db
    .selectFrom("transactions")
    .select((eb) => [
      "business_id",
      eb.fn.sum<number>("amount").as("amount"),
      eb.fn.sum<number>("fee").as("fee"),
      eb.fn.sum<number>("net_amount").as("net"),
      eb.fn.count<number>("id").as("count"),
      eb.fn.max<number>("ordinal").as("maxOrdinal"),
    ])
    .groupBy("business_id")
    .execute();
  const balances = await db.selectFrom("ledger_accounts").select(["id", "balance"]).execute();
  const balance = (id: string) => Number(balances.find((b) => b.id === id)?.balance ?? 0);
  for (const row of byBusiness) {
    const id = row.business_id;
    assert.equal(balance(`${id}:settlement`), -Number(row.amount), `${id}: settlement = -received`);
    assert.equal(balance(`${id}:revenue`), Number(row.fee), `${id}: revenue = fees`);
    assert.equal(balance(`${id}:available`), Number(row.net), `${id}: available = received - fees`);
    assert.equal(Number(row.maxOrdinal), Number(row.count), `${id}: ordinals are dense`);
  }
  const accounts = await db
    .selectFrom("accounts as a")
    .leftJoin("transactions as t", "t.account_id", "a.id")
    .select((eb) => [
      "a.id",
      "a.total_received",
      "a.transfer_count",
      eb.fn.coalesce(eb.fn.sum<number>("t.amount"), eb.val(0)).as("sum"),
      eb.fn.count<number>("t.id").as("count"),
    ])
    .groupBy(["a.id", "a.total_received", "a.transfer_count"])
    .execute();
  for (const account of accounts) {
    assert.equal(Number(account.total_received), Number(account.sum), `account ${account.id}: totalReceived`);
    assert.equal(Number(account.transfer_count), Number(account.count), `account ${account.id}: transfers`);
  }
}
