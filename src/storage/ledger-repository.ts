import type { AccountHead, ChainedEntry } from "../ledger/posting.js";
import { GENESIS_HASH } from "../ledger/posting.js";
import type { LedgerAccountKind } from "./schema.js";
import { type Executor, hasRowLocks } from "./transactions.js";

/** The kinds every business has one ledger account of. */
const LEDGER_ACCOUNT_KINDS: readonly LedgerAccountKind[] = ["available", "revenue", "settlement"];

/** A business's ledger account id: deterministic, so it is found without a lookup. */
export const ledgerAccountId = (businessId: string, kind: LedgerAccountKind) => `${businessId}:${kind}`;

/**
 * The business's ledger accounts, created on first use and locked for the rest of the
 * transaction (PostgreSQL; SQLite's write transaction already excludes other writers), always
 * in the same order. Only this business's rows are touched: no row is shared between businesses.
 */
export async function lockLedgerAccounts(
  db: Executor,
  businessId: string,
  currency: string,
  now: string,
): Promise<Map<LedgerAccountKind, AccountHead>> {
  let rows = await selectHeads(db, businessId);
  // Created on the business's first transfer only: every later one just locks them.
  if (rows.length < LEDGER_ACCOUNT_KINDS.length) {
    await db
      .insertInto("ledger_accounts")
      .values(
        LEDGER_ACCOUNT_KINDS.map((kind) => ({
          id: ledgerAccountId(businessId, kind),
          business_id: businessId,
          kind,
          currency,
          balance: 0,
          entry_count: 0,
          last_hash: GENESIS_HASH,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
    rows = await selectHeads(db, businessId);
  }
  return new Map(
    rows.map((row) => [
      row.kind,
      { id: row.id, balance: Number(row.balance), entryCount: row.entry_count, lastHash: row.last_hash },
    ]),
  );
}

function selectHeads(db: Executor, businessId: string) {
  let query = db
    .selectFrom("ledger_accounts")
    .select(["id", "kind", "balance", "entry_count", "last_hash"])
    .where("business_id", "=", businessId)
    .orderBy("id");
  if (hasRowLocks(db)) query = query.forUpdate();
  return query.execute();
}

/** Stores a transaction's entries and moves each account's head to its last entry. */
export async function appendEntries(
  db: Executor,
  businessId: string,
  entries: readonly ChainedEntry[],
  heads: Iterable<AccountHead>,
): Promise<void> {
  await db
    .insertInto("ledger_entries")
    .values(
      entries.map((entry) => ({
        ledger_account_id: entry.ledgerAccountId,
        sequence: entry.sequence,
        transaction_id: entry.transactionId,
        business_id: businessId,
        amount: entry.amount,
        balance_after: entry.balanceAfter,
        created_at: entry.createdAt,
        previous_hash: entry.previousHash,
        hash: entry.hash,
      })),
    )
    .execute();
  for (const head of heads) {
    await db
      .updateTable("ledger_accounts")
      .set({ balance: head.balance, entry_count: head.entryCount, last_hash: head.lastHash })
      .where("id", "=", head.id)
      .execute();
  }
}

/** The business's balances by kind (0 for an account not yet created). */
export async function ledgerBalances(
  db: Executor,
  businessId: string,
): Promise<Record<LedgerAccountKind, number>> {
  const rows = await db
    .selectFrom("ledger_accounts")
    .select(["kind", "balance"])
    .where("business_id", "=", businessId)
    .execute();
  const balances: Record<LedgerAccountKind, number> = { available: 0, revenue: 0, settlement: 0 };
  for (const row of rows) balances[row.kind] = Number(row.balance);
  return balances;
}

/**
 * The business's balances by kind as they stood at `at`: the balance after each ledger
 * account's last entry recorded at or before it (0 before its first), one index seek per
 * account on (ledger_account_id, created_at, sequence). Entry times never decrease within a
 * business, so the last by time is the last by sequence.
 */
export async function ledgerBalancesAt(
  db: Executor,
  businessId: string,
  at: string,
): Promise<Record<LedgerAccountKind, number>> {
  const balances: Record<LedgerAccountKind, number> = { available: 0, revenue: 0, settlement: 0 };
  for (const kind of LEDGER_ACCOUNT_KINDS) {
    const row = await balanceAtQuery(db, ledgerAccountId(businessId, kind), at).executeTakeFirst();
    if (row) balances[kind] = Number(row.balance_after);
  }
  return balances;
}

/** The query behind ledgerBalancesAt, for one ledger account (exposed so tests can check its plan). */
export function balanceAtQuery(db: Executor, ledgerAccount: string, at: string) {
  return db
    .selectFrom("ledger_entries")
    .select("balance_after")
    .where("ledger_account_id", "=", ledgerAccount)
    .where("created_at", "<=", at)
    .orderBy("created_at", "desc")
    .orderBy("sequence", "desc")
    .limit(1);
}
