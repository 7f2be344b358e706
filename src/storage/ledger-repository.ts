import type { LedgerAccountKind } from "../ledger/kinds.js";
import { EVERY_LEDGER_ACCOUNT_KIND, ledgerAccountId } from "../ledger/kinds.js";
import type { Executor } from "./executor.js";

/** Every kind at 0: the balance of an account not yet opened. */
const zeroBalances = (): Record<LedgerAccountKind, number> =>
  Object.fromEntries(EVERY_LEDGER_ACCOUNT_KIND.map((kind) => [kind, 0])) as Record<LedgerAccountKind, number>;

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
  const balances = zeroBalances();
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
  const balances = zeroBalances();
  for (const kind of EVERY_LEDGER_ACCOUNT_KIND) {
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
