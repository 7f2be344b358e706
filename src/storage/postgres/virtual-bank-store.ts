import type pg from "pg";
import type { PostgresStorage } from "../database.js";
import {
  type BankAccountRow,
  toRecord,
  type VirtualBankAccount,
  virtualBankStore,
} from "../virtual-bank-store.js";
import { named } from "./named.js";
import { WriteBatches } from "./write-batches.js";

/**
 * The Virtual Bank's store on PostgreSQL (providers/virtual-bank-store.ts's port, fitted in
 * compose/): the accounts opened while one opening is in flight are
 * opened together, in one statement and one commit (WriteBatches), as SQLite's group commit
 * opens them in one transaction.
 */
export function postgresVirtualBankStore(storage: PostgresStorage) {
  const store = virtualBankStore(storage.db);
  const { pool } = storage;
  const openings = new WriteBatches<VirtualBankAccount, VirtualBankAccount>({
    many: (accounts) => openMany(pool, accounts),
    one: (account) => openMany(pool, [account]).then(([recorded]) => recorded as VirtualBankAccount),
    identity: (account) => account.reference,
  });
  return { ...store, openOnce: (account: VirtualBankAccount) => openings.submit(account) };
}

/**
 * Records each account unless its reference is known, and answers each reference's recording:
 * the new row, or the first one (a retry, or the loser of two opens racing with one reference).
 * In reference order, so that two processes' batches never wait on each other in a circle.
 */
async function openMany(
  pool: pg.Pool,
  accounts: readonly VirtualBankAccount[],
): Promise<VirtualBankAccount[]> {
  const sorted = [...accounts].sort((a, b) => (a.reference < b.reference ? -1 : 1));
  const result = await pool.query<BankAccountRow>(
    openStatement.query({
      references: sorted.map((a) => a.reference),
      account_numbers: sorted.map((a) => a.accountNumber),
      account_names: sorted.map((a) => a.accountName),
      statuses: sorted.map((a) => a.status),
      created_ats: sorted.map((a) => a.createdAt),
    }),
  );
  const recorded = new Map(result.rows.map((row) => [row.reference, toRecord(row)]));
  const missing = accounts.filter((account) => !recorded.has(account.reference));
  if (missing.length > 0) {
    const known = await pool.query<BankAccountRow>(
      findStatement.query({ references: missing.map((a) => a.reference) }),
    );
    for (const row of known.rows) recorded.set(row.reference, toRecord(row));
  }
  return accounts.map((account) => {
    const found = recorded.get(account.reference);
    if (!found) throw new Error(`virtual bank account ${account.reference} vanished after insert`);
    return found;
  });
}

const openStatement =
  named(`insert into virtual_bank_accounts (reference, account_number, account_name, status, created_at)
  select * from unnest(@references::text[], @account_numbers::text[], @account_names::text[], @statuses::text[],
                       @created_ats::text[])
  on conflict (reference) do nothing
  returning *`);
const findStatement = named("select * from virtual_bank_accounts where reference = any(@references::text[])");
