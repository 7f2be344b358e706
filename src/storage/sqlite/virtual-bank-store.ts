import type SqliteDatabase from "better-sqlite3";
import type { SqliteStorage } from "../database.js";
import { prepared } from "../prepared.js";
import {
  type BankAccountRow,
  toRecord,
  type VirtualBankAccount,
  virtualBankStore,
} from "../virtual-bank-store.js";

/**
 * The Virtual Bank's store on SQLite (providers/virtual-bank-store.ts's port, fitted in
 * compose/): opening an account is one synchronous write in the group commit.
 */
export function sqliteVirtualBankStore(storage: SqliteStorage) {
  return {
    ...virtualBankStore(storage.db),
    openOnce: (account: VirtualBankAccount) =>
      storage.group.run((connection) => openNow(connection, account)),
  };
}

function openNow(db: SqliteDatabase.Database, account: VirtualBankAccount): VirtualBankAccount {
  const row = {
    reference: account.reference,
    account_number: account.accountNumber,
    account_name: account.accountName,
    status: account.status,
    created_at: account.createdAt,
  };
  prepared(db, OPEN_ONCE).run(row);
  const recorded = prepared(db, FIND_BY_REFERENCE).get(row.reference) as BankAccountRow | undefined;
  if (!recorded) throw new Error(`virtual bank account ${account.reference} vanished after insert`);
  return toRecord(recorded);
}

const OPEN_ONCE = `insert into virtual_bank_accounts (reference, account_number, account_name, status, created_at)
  values (@reference, @account_number, @account_name, @status, @created_at) on conflict (reference) do nothing`;
const FIND_BY_REFERENCE = "select * from virtual_bank_accounts where reference = ?";
