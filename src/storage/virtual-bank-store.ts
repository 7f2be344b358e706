import type { PayoutStatus } from "../core/api-types.js";
import type { After } from "../core/time-window.js";
import { advanceCounter } from "./counter-repository.js";
import type { Executor } from "./executor.js";
import { afterRow } from "./keyset.js";
import type { VirtualBankPayoutsTable } from "./schema-payouts.js";
import { findTransactionBySession, type TransactionRow } from "./transaction-repository.js";

// The embedded Virtual Bank's store in the service's database (its own tables and counter): the
// port is providers/virtual-bank-store.ts's VirtualBankStore, which this implements structurally
// (compose/services.ts is where the compiler checks the fit); storage imports nothing of it.
// Its records are storage's own, of the port's shape: an account's declared, a transfer out's
// read from its row.

/** One account as the Virtual Bank records it (the port's BankAccountRecord). */
export interface VirtualBankAccount {
  reference: string;
  accountNumber: string;
  accountName: string;
  status: "enabled" | "disabled";
  createdAt: string;
}

const toPayoutRecord = (row: VirtualBankPayoutsTable) => ({
  reference: row.reference,
  bankCode: row.bank_code,
  accountNumber: row.account_number,
  accountName: row.account_name,
  amount: Number(row.amount),
  outcome: row.outcome,
  sessionId: row.session_id,
  acceptedAt: row.accepted_at,
  settlesAt: row.settles_at,
  reversesAt: row.reverses_at,
  notified: row.notified,
});

/** A transfer out as the Virtual Bank records it (the port's BankPayoutRecord), read from its row. */
export type VirtualBankPayout = ReturnType<typeof toPayoutRecord>;

const payoutRow = (payout: VirtualBankPayout): VirtualBankPayoutsTable => ({
  reference: payout.reference,
  bank_code: payout.bankCode,
  account_number: payout.accountNumber,
  account_name: payout.accountName,
  amount: payout.amount,
  outcome: payout.outcome,
  session_id: payout.sessionId,
  accepted_at: payout.acceptedAt,
  settles_at: payout.settlesAt,
  reverses_at: payout.reversesAt,
  notified: payout.notified,
});

export const SERIAL_COUNTER = "virtual_bank.serial";

export type BankAccountRow = {
  reference: string;
  account_number: string;
  account_name: string;
  status: string;
  created_at: string;
};

export const toRecord = (row: BankAccountRow): VirtualBankAccount => ({
  reference: row.reference,
  accountNumber: row.account_number,
  accountName: row.account_name,
  status: row.status === "disabled" ? "disabled" : "enabled",
  createdAt: row.created_at,
});

/**
 * The Virtual Bank's store through the query builder, both dialects; each dialect's store
 * (sqlite/virtual-bank-store.ts, postgres/virtual-bank-store.ts) opens accounts its own way.
 */
export function virtualBankStore(db: Executor) {
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
    reserveSerials: (count: number) => advanceCounter(db, SERIAL_COUNTER, count),
    async openOnce(account: VirtualBankAccount): Promise<VirtualBankAccount> {
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
    async setStatus(accountNumber: string, status: VirtualBankAccount["status"]): Promise<boolean> {
      const result = await db
        .updateTable("virtual_bank_accounts")
        .set({ status })
        .where("account_number", "=", accountNumber)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async recordPayoutOnce(payout: VirtualBankPayout): Promise<VirtualBankPayout> {
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
    async payoutsToNotify(now: string, limit: number): Promise<VirtualBankPayout[]> {
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
    creditsBetween: async (window: IsoWindow, after: After | undefined, limit: number) =>
      (
        await db
          .selectFrom("transactions")
          .selectAll()
          .where("value_at", ">=", window.from)
          .where("value_at", "<", window.to)
          .$if(after !== undefined, (query) =>
            query.where(afterRow("value_at", "session_id", after as After)),
          )
          .orderBy("value_at")
          .orderBy("session_id")
          .limit(limit)
          .execute()
      ).map(creditOf),
    findCredit: async (sessionId: string) => {
      const row = await findTransactionBySession(db, sessionId);
      return row && creditOf(row);
    },
    async payoutsBetween(
      window: IsoWindow,
      after: After | undefined,
      limit: number,
    ): Promise<VirtualBankPayout[]> {
      const rows = await db
        .selectFrom("virtual_bank_payouts")
        .selectAll()
        .where("accepted_at", ">=", window.from)
        .where("accepted_at", "<", window.to)
        .$if(after !== undefined, (query) =>
          query.where(afterRow("accepted_at", "reference", after as After)),
        )
        .orderBy("accepted_at")
        .orderBy("reference")
        .limit(limit)
        .execute();
      return rows.map(toPayoutRecord);
    },
    async markNotified(reference: string, from: PayoutStatus, status: PayoutStatus): Promise<boolean> {
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

/** A window of ISO 8601 times: [from, to). */
export interface IsoWindow {
  from: string;
  to: string;
}

/** A transaction the embedded bank credited, as its statement has it (the port's TransferNotification). */
const creditOf = (row: TransactionRow) => ({
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
