import type { PayoutStatus } from "../core/api-types.js";
import { advanceCounter } from "../storage/counter-repository.js";
import type { Executor } from "../storage/executor.js";
import { type After, afterRow } from "../storage/keyset.js";
import type { VirtualBankPayoutsTable } from "../storage/schema-payouts.js";
import { findTransactionBySession, type TransactionRow } from "../storage/transaction-repository.js";
import type { TransferNotification } from "./transfer-notification.js";

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
  /** Records a transfer out unless its reference is known; either way returns the recorded one. */
  recordPayoutOnce(payout: BankPayoutRecord): Promise<BankPayoutRecord>;
  findPayout(reference: string): Promise<BankPayoutRecord | undefined>;
  /** Transfers out whose status has changed by `now` since the service was last told, oldest first. */
  payoutsToNotify(now: string, limit: number): Promise<BankPayoutRecord[]>;
  /** Records that the service was told of `status`, if it had last been told of `from`; false otherwise. */
  markNotified(reference: string, from: PayoutStatus, status: PayoutStatus): Promise<boolean>;
  /**
   * The credits it made, with value times in [from, to) after `after` (value time, then session
   * id), oldest first. The embedded bank shares the service's database and credits through the
   * ingestion path in the same transaction as the ledger, so its book of credits is the
   * service's transactions (virtual-bank-statement.ts says what that means for reconciliation).
   */
  creditsBetween(
    window: IsoWindow,
    after: IsoPosition | undefined,
    limit: number,
  ): Promise<TransferNotification[]>;
  /** The credit it made with this session id. */
  findCredit(sessionId: string): Promise<TransferNotification | undefined>;
  /** Its transfers out taken in [from, to) after `after` (acceptance time, then reference), oldest first. */
  payoutsBetween(
    window: IsoWindow,
    after: IsoPosition | undefined,
    limit: number,
  ): Promise<BankPayoutRecord[]>;
}

/** A window of ISO 8601 times: [from, to). */
export interface IsoWindow {
  from: string;
  to: string;
}

/** A place in a time-ordered list: after this time, then this id. */
export type IsoPosition = After;

/** A transfer out as the Virtual Bank records it: its outcome is fixed by its destination. */
export interface BankPayoutRecord {
  reference: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  amount: number;
  outcome: "successful" | "failed" | "reversed";
  acceptedAt: string;
  /** When it stops being pending. */
  settlesAt: string;
  /** When it comes back (reversing destinations only). */
  reversesAt: string | null;
  /** The last status the service was told of. */
  notified: PayoutStatus;
}

/** Where a transfer out stands at `now`: pending until it settles, then its outcome (a reversal after success). */
export function payoutStatusAt(record: BankPayoutRecord, now: string): PayoutStatus {
  if (now < record.settlesAt) return "pending";
  if (record.outcome === "failed") return "failed";
  if (record.reversesAt !== null && now >= record.reversesAt) return "reversed";
  return "successful";
}

export const payoutRow = (payout: BankPayoutRecord): VirtualBankPayoutsTable => ({
  reference: payout.reference,
  bank_code: payout.bankCode,
  account_number: payout.accountNumber,
  account_name: payout.accountName,
  amount: payout.amount,
  outcome: payout.outcome,
  accepted_at: payout.acceptedAt,
  settles_at: payout.settlesAt,
  reverses_at: payout.reversesAt,
  notified: payout.notified,
});

export const toPayoutRecord = (row: VirtualBankPayoutsTable): BankPayoutRecord => ({
  reference: row.reference,
  bankCode: row.bank_code,
  accountNumber: row.account_number,
  accountName: row.account_name,
  amount: Number(row.amount),
  outcome: row.outcome,
  acceptedAt: row.accepted_at,
  settlesAt: row.settles_at,
  reversesAt: row.reverses_at,
  notified: row.notified,
});

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
  const findPayout = async (reference: string) => {
    const row = await db
      .selectFrom("virtual_bank_payouts")
      .selectAll()
      .where("reference", "=", reference)
      .executeTakeFirst();
    return row ? toPayoutRecord(row) : undefined;
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
    async recordPayoutOnce(payout) {
      await db
        .insertInto("virtual_bank_payouts")
        .values(payoutRow(payout))
        .onConflict((oc) => oc.column("reference").doNothing())
        .execute();
      const recorded = await findPayout(payout.reference);
      if (!recorded) throw new Error(`virtual bank payout ${payout.reference} vanished after insert`);
      return recorded;
    },
    findPayout,
    async payoutsToNotify(now, limit) {
      const rows = await db
        .selectFrom("virtual_bank_payouts")
        .selectAll()
        .where((eb) =>
          eb.or([
            eb.and([eb("notified", "=", "pending"), eb("settles_at", "<=", now)]),
            eb.and([eb("notified", "=", "successful"), eb("reverses_at", "<=", now)]),
          ]),
        )
        .orderBy("settles_at")
        .limit(limit)
        .execute();
      return rows.map(toPayoutRecord);
    },
    creditsBetween: async (window, after, limit) =>
      (
        await db
          .selectFrom("transactions")
          .selectAll()
          .where("value_at", ">=", window.from)
          .where("value_at", "<", window.to)
          .$if(after !== undefined, (query) =>
            query.where(afterRow("value_at", "session_id", after as IsoPosition)),
          )
          .orderBy("value_at")
          .orderBy("session_id")
          .limit(limit)
          .execute()
      ).map(creditOf),
    findCredit: async (sessionId) => {
      const row = await findTransactionBySession(db, sessionId);
      return row && creditOf(row);
    },
    async payoutsBetween(window, after, limit) {
      const rows = await db
        .selectFrom("virtual_bank_payouts")
        .selectAll()
        .where("accepted_at", ">=", window.from)
        .where("accepted_at", "<", window.to)
        .$if(after !== undefined, (query) =>
          query.where(afterRow("accepted_at", "reference", after as IsoPosition)),
        )
        .orderBy("accepted_at")
        .orderBy("reference")
        .limit(limit)
        .execute();
      return rows.map(toPayoutRecord);
    },
    async markNotified(reference, from, status) {
      const result = await db
        .updateTable("virtual_bank_payouts")
        .set({ notified: status })
        .where("reference", "=", reference)
        .where("notified", "=", from)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

/** A transaction the embedded bank credited, as its statement has it. */
const creditOf = (row: TransactionRow): TransferNotification => ({
  sessionId: row.session_id,
  accountNumber: row.account_number,
  amount: Number(row.amount),
  currency: row.currency,
  payer: {
    name: row.payer_name,
    accountNumber: row.payer_account_number,
    bankName: row.payer_bank_name,
    bankCode: row.payer_bank_code,
  },
  narration: row.narration,
  paidAt: row.value_at,
});
