import { randomBytes } from "node:crypto";
import SqliteDatabase from "better-sqlite3";
import type { BankAccountRecord, BankPayoutRecord } from "../providers/virtual-bank-store.js";
import { AS_PAYOUT_RECORD, type DueTransferOut, type TransferOutRow } from "./transfers-out.js";

// The Virtual Bank server's own SQLite file (issue 14): the accounts it opened, its serial
// counter, its numbering key, and the transfers it owes notifications for. Nothing of the
// service's schema: the bank is another party. It never keeps the BVN or NIN it is sent.

/** A transfer into one of the bank's accounts, and where its notification stands. */
export interface BankTransfer {
  orderNo: string;
  accountNumber: string;
  /** Kobo. */
  amount: number;
  currency: string;
  payerName: string;
  payerAccountNo: string;
  payerBankName: string;
  /** The payer's bank's CBN code (null: not given). */
  payerBankCode: string | null;
  narration: string;
  /** When the payer was debited (milliseconds). */
  paidTime: number;
  /** pending: being notified; acknowledged: the service recorded it; refused: the service refused it (the bank reverses it); abandoned: never acknowledged within the attempts. */
  status: "pending" | "acknowledged" | "refused" | "abandoned";
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
}

/** An account as the bank server reports it: the provider's record and whether it was deleted. */
export interface BankAccount extends BankAccountRecord {
  state: "enabled" | "disabled" | "deleted";
}

const SCHEMA = `
  create table if not exists accounts (
    reference text primary key,
    account_number text not null unique,
    account_name text not null,
    status text not null check (status in ('enabled', 'disabled', 'deleted')),
    created_at text not null
  );
  create table if not exists counters (name text primary key, value integer not null);
  create table if not exists settings (name text primary key, value blob not null);
  create table if not exists transfers (
    order_no text primary key,
    account_number text not null,
    amount integer not null check (amount > 0),
    currency text not null,
    payer_name text not null,
    payer_account_no text not null,
    payer_bank_name text not null,
    payer_bank_code text,
    narration text not null,
    paid_time integer not null,
    status text not null,
    attempts integer not null default 0,
    next_attempt_at integer not null,
    last_error text
  );
  create index if not exists transfers_due on transfers (next_attempt_at) where status = 'pending';
  create index if not exists transfers_paid on transfers (paid_time, order_no);
  create table if not exists transfers_out (
    reference text primary key,
    bank_code text not null,
    account_number text not null,
    account_name text not null,
    amount integer not null check (amount > 0),
    outcome text not null,
    session_id text,
    accepted_at text not null,
    settles_at text not null,
    reverses_at text,
    notified text not null default 'pending',
    attempts integer not null default 0,
    next_attempt_at integer not null default 0,
    last_error text
  );
  create index if not exists transfers_out_accepted on transfers_out (accepted_at, reference);
`;

type AccountRow = {
  reference: string;
  account_number: string;
  account_name: string;
  status: string;
  created_at: string;
};

export type TransferRow = {
  order_no: string;
  account_number: string;
  amount: number;
  currency: string;
  payer_name: string;
  payer_account_no: string;
  payer_bank_name: string;
  payer_bank_code: string | null;
  narration: string;
  paid_time: number;
  status: BankTransfer["status"];
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
};

/** The bank's database: one file, one connection, synchronous statements (the bank is small). */
export class BankDatabase {
  /** The file's one connection (bank-store.ts reads and writes through it too). */
  readonly db: SqliteDatabase.Database;

  constructor(file: string) {
    this.db = new SqliteDatabase(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(SCHEMA);
    // A data directory from before refunds: its transfers gain the payer's bank code.
    const columns = this.db.prepare("select name from pragma_table_info('transfers')").all() as {
      name: string;
    }[];
    if (!columns.some((column) => column.name === "payer_bank_code")) {
      this.db.exec("alter table transfers add column payer_bank_code text");
    }
    // A data directory from before NIP session ids (issue 46): its transfers out gain one.
    const outColumns = this.db.prepare("select name from pragma_table_info('transfers_out')").all() as {
      name: string;
    }[];
    if (!outColumns.some((column) => column.name === "session_id")) {
      this.db.exec("alter table transfers_out add column session_id text");
    }
  }

  /** The key that numbers the bank's accounts: made once, kept in the file. */
  numberingKey(): Buffer {
    const found = this.db.prepare("select value from settings where name = 'numbering_key'").get() as
      | { value: Buffer }
      | undefined;
    if (found) return found.value;
    const key = randomBytes(32);
    this.db.prepare("insert into settings (name, value) values ('numbering_key', ?)").run(key);
    return key;
  }

  /** Records that the service was told of `status`, if it had last been told of `from`. */
  markNotified(reference: string, from: string, status: string): boolean {
    return (
      this.db
        .prepare(
          "update transfers_out set notified = ?, attempts = 0, last_error = null where reference = ? and notified = ?",
        )
        .run(status, reference, from).changes > 0
    );
  }

  /** A transfer out by the service's reference. */
  payout(reference: string): BankPayoutRecord | undefined {
    return this.db
      .prepare(`select ${AS_PAYOUT_RECORD} from transfers_out where reference = ?`)
      .get(reference) as BankPayoutRecord | undefined;
  }

  /** Every transfer out, oldest first (the sandbox's view of what it paid). */
  payouts(): TransferOutRow[] {
    return this.db
      .prepare("select * from transfers_out order by accepted_at, reference")
      .all() as TransferOutRow[];
  }

  /** Transfers out whose status changed since the service was told, with their next attempt due by `nowMs`. */
  payoutsToNotify(now: string, nowMs: number, limit: number): DueTransferOut[] {
    return this.db
      .prepare(
        `select ${AS_PAYOUT_RECORD}, attempts from transfers_out
         where ((notified = 'pending' and settles_at <= @now) or (notified = 'successful' and reverses_at <= @now))
           and next_attempt_at <= @nowMs
         order by settles_at limit @limit`,
      )
      .all({ now, nowMs, limit }) as DueTransferOut[];
  }

  /** A status notification of a transfer out that was not acknowledged: when to try again. */
  payoutNotificationFailed(reference: string, nextAttemptAt: number, error: string): void {
    this.db
      .prepare(
        "update transfers_out set attempts = attempts + 1, next_attempt_at = ?, last_error = ? where reference = ?",
      )
      .run(nextAttemptAt, error, reference);
  }

  account(reference: string): BankAccount | undefined {
    const row = this.db.prepare("select * from accounts where reference = ?").get(reference) as
      | AccountRow
      | undefined;
    return row ? toAccount(row) : undefined;
  }

  accountByNumber(accountNumber: string): BankAccount | undefined {
    const row = this.db.prepare("select * from accounts where account_number = ?").get(accountNumber) as
      | AccountRow
      | undefined;
    return row ? toAccount(row) : undefined;
  }

  accounts(): BankAccount[] {
    return (
      this.db.prepare("select * from accounts order by created_at, reference").all() as AccountRow[]
    ).map(toAccount);
  }

  /** False when no live account has this number (a deleted one stays deleted). */
  setStatus(accountNumber: string, status: "enabled" | "disabled" | "deleted"): boolean {
    const result = this.db
      .prepare("update accounts set status = ? where account_number = ? and status <> 'deleted'")
      .run(status, accountNumber);
    return result.changes > 0;
  }

  /** Records a transfer to notify; the same order number again keeps the first. */
  addTransfer(
    transfer: Omit<BankTransfer, "status" | "attempts" | "nextAttemptAt" | "lastError">,
  ): BankTransfer {
    this.db
      .prepare(
        `insert into transfers (order_no, account_number, amount, currency, payer_name, payer_account_no,
           payer_bank_name, payer_bank_code, narration, paid_time, status, attempts, next_attempt_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?) on conflict (order_no) do nothing`,
      )
      .run(
        transfer.orderNo,
        transfer.accountNumber,
        transfer.amount,
        transfer.currency,
        transfer.payerName,
        transfer.payerAccountNo,
        transfer.payerBankName,
        transfer.payerBankCode,
        transfer.narration,
        transfer.paidTime,
        transfer.paidTime,
      );
    const recorded = this.transfer(transfer.orderNo);
    if (!recorded) throw new Error(`transfer ${transfer.orderNo} vanished after insert`);
    return recorded;
  }

  transfer(orderNo: string): BankTransfer | undefined {
    const row = this.db.prepare("select * from transfers where order_no = ?").get(orderNo) as
      | TransferRow
      | undefined;
    return row ? toTransfer(row) : undefined;
  }

  /** Pending transfers whose next attempt is due, oldest first. */
  dueTransfers(now: number, limit: number): BankTransfer[] {
    return (
      this.db
        .prepare(
          `select * from transfers where status = 'pending' and next_attempt_at <= ?
           order by next_attempt_at, order_no limit ?`,
        )
        .all(now, limit) as TransferRow[]
    ).map(toTransfer);
  }

  /** Where an attempt left the transfer: its new status, attempt count and next attempt. */
  recordAttempt(
    orderNo: string,
    outcome: { status: BankTransfer["status"]; nextAttemptAt: number; error: string | null },
  ): void {
    this.db
      .prepare(
        `update transfers set status = ?, attempts = attempts + 1, next_attempt_at = ?, last_error = ?
         where order_no = ? and status = 'pending'`,
      )
      .run(outcome.status, outcome.nextAttemptAt, outcome.error, orderNo);
  }

  close(): void {
    this.db.close();
  }
}

const toAccount = (row: AccountRow): BankAccount => ({
  reference: row.reference,
  accountNumber: row.account_number,
  accountName: row.account_name,
  // The provider's record knows enabled and disabled; a deleted account takes nothing either.
  status: row.status === "enabled" ? "enabled" : "disabled",
  state: row.status === "deleted" ? "deleted" : row.status === "disabled" ? "disabled" : "enabled",
  createdAt: row.created_at,
});

const toTransfer = (row: TransferRow): BankTransfer => ({
  orderNo: row.order_no,
  accountNumber: row.account_number,
  amount: row.amount,
  currency: row.currency,
  payerName: row.payer_name,
  payerAccountNo: row.payer_account_no,
  payerBankName: row.payer_bank_name,
  payerBankCode: row.payer_bank_code,
  narration: row.narration,
  paidTime: row.paid_time,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastError: row.last_error,
});
