import { advanceCounter } from "../storage/counter-repository.js";
import type { Executor } from "../storage/executor.js";

/** One account as the Virtual Bank records it. */
export interface BankAccountRecord {
  reference: string;
  accountNumber: string;
  accountName: string;
  status: "enabled" | "disabled";
  createdAt: string;
}

/** What the Virtual Bank keeps: its serial counter and the accounts it opened. Its own, not the service's. */
export interface VirtualBankStore {
  /** Advances the serial counter by `count`; returns its new end (the range is end-count..end-1). */
  reserveSerials(count: number): Promise<number>;
  /** Records the account unless its reference is known; either way returns the recorded one. */
  openOnce(account: BankAccountRecord): Promise<BankAccountRecord>;
  findByReference(reference: string): Promise<BankAccountRecord | undefined>;
  /** Returns false when no account has this number. */
  setStatus(accountNumber: string, status: BankAccountRecord["status"]): Promise<boolean>;
}

export const SERIAL_COUNTER = "virtual_bank.serial";

export type BankAccountRow = {
  reference: string;
  account_number: string;
  account_name: string;
  status: string;
  created_at: string;
};

export const toRecord = (row: BankAccountRow): BankAccountRecord => ({
  reference: row.reference,
  accountNumber: row.account_number,
  accountName: row.account_name,
  status: row.status === "disabled" ? "disabled" : "enabled",
  createdAt: row.created_at,
});

/**
 * The Virtual Bank's store in the service's database (its own tables and counter), through the
 * query builder: what PostgreSQL runs (sqlite-virtual-bank-store.ts opens accounts in SQLite's
 * group commit instead).
 */
export function virtualBankStore(db: Executor): VirtualBankStore {
  const find = async (reference: string) => {
    const row = await db
      .selectFrom("virtual_bank_accounts")
      .selectAll()
      .where("reference", "=", reference)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  };
  return {
    reserveSerials: (count) => advanceCounter(db, SERIAL_COUNTER, count),
    async openOnce(account) {
      // One round trip when the reference is new (the usual case); a second to read the first
      // recording when it is not.
      const inserted = await db
        .insertInto("virtual_bank_accounts")
        .values({
          reference: account.reference,
          account_number: account.accountNumber,
          account_name: account.accountName,
          status: account.status,
          created_at: account.createdAt,
        })
        .onConflict((oc) => oc.column("reference").doNothing())
        .returningAll()
        .executeTakeFirst();
      const recorded = inserted ? toRecord(inserted) : await find(account.reference);
      if (!recorded) throw new Error(`virtual bank account ${account.reference} vanished after insert`);
      return recorded;
    },
    findByReference: find,
    async setStatus(accountNumber, status) {
      const result = await db
        .updateTable("virtual_bank_accounts")
        .set({ status })
        .where("account_number", "=", accountNumber)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
