import type { TransferNotification } from "../providers/transfer-notification.js";
import type { BankPayoutRecord, VirtualBankStore } from "../providers/virtual-bank-store.js";
import type { BankDatabase, TransferRow } from "./bank-database.js";
import { AS_PAYOUT_RECORD, INSERT_PAYOUT_ONCE } from "./transfers-out.js";

// The VirtualBank's store over the bank server's own file: it numbers and opens accounts as the
// embedded one does, keeps its transfers out, and reads its statement (issue 27).

export function bankStore(bank: BankDatabase, forgotten: () => readonly string[]): VirtualBankStore {
  const db = bank.db;
  // The sandbox's forgotten order numbers, left out in SQL so that a page's length stays exact.
  const lost = () => JSON.stringify(forgotten());
  const NOT_FORGOTTEN = "not in (select value from json_each(@forgotten))";
  return {
    // Its statement (issue 27): the credits it holds (not those it sent back) and its transfers
    // out, less what the sandbox was told to forget.
    creditsBetween: async (window, after, limit) =>
      (
        db
          .prepare(
            `select * from transfers
             where paid_time >= @from and paid_time < @to and status <> 'refused'
               and (paid_time > @time or (paid_time = @time and order_no > @id)) and order_no ${NOT_FORGOTTEN}
             order by paid_time, order_no limit @limit`,
          )
          .all({
            from: Date.parse(window.from),
            to: Date.parse(window.to),
            time: after ? Date.parse(after.time) : -1,
            id: after?.id ?? "",
            limit,
            forgotten: lost(),
          }) as TransferRow[]
      ).map(creditOf),
    findCredit: async (sessionId) => {
      const row = db
        .prepare(
          `select * from transfers where order_no = @sessionId and status <> 'refused' and order_no ${NOT_FORGOTTEN}`,
        )
        .get({ sessionId, forgotten: lost() }) as TransferRow | undefined;
      return row && creditOf(row);
    },
    payoutsBetween: async (window, after, limit) =>
      db
        .prepare(
          `select ${AS_PAYOUT_RECORD} from transfers_out
             where accepted_at >= @from and accepted_at < @to
               and (accepted_at > @time or (accepted_at = @time and reference > @id)) and reference ${NOT_FORGOTTEN}
             order by accepted_at, reference limit @limit`,
        )
        .all({
          ...window,
          time: after?.time ?? "",
          id: after?.id ?? "",
          limit,
          forgotten: lost(),
        }) as BankPayoutRecord[],
    reserveSerials: async (count) => {
      const row = db
        .prepare(
          `insert into counters (name, value) values ('serial', ?)
           on conflict (name) do update set value = value + excluded.value returning value`,
        )
        .get(count) as { value: number };
      return row.value;
    },
    openOnce: async (account) => {
      db.prepare(
        `insert into accounts (reference, account_number, account_name, status, created_at)
           values (?, ?, ?, ?, ?) on conflict (reference) do nothing`,
      ).run(account.reference, account.accountNumber, account.accountName, account.status, account.createdAt);
      const recorded = bank.account(account.reference);
      if (!recorded) throw new Error(`account ${account.reference} vanished after insert`);
      return recorded;
    },
    findByReference: async (reference) => bank.account(reference),
    setStatus: async (accountNumber, status) => bank.setStatus(accountNumber, status),
    recordPayoutOnce: async (payout) => {
      db.prepare(INSERT_PAYOUT_ONCE).run(payout);
      const recorded = bank.payout(payout.reference);
      if (!recorded) throw new Error(`transfer out ${payout.reference} vanished after insert`);
      return recorded;
    },
    findPayout: async (reference) => bank.payout(reference),
    payoutsToNotify: async (now, limit) => bank.payoutsToNotify(now, Date.parse(now), limit),
    markNotified: async (reference, from, status) => bank.markNotified(reference, from, status),
  };
}

/** A credit the bank holds, in the one shape every inbound transfer takes. */
const creditOf = (row: TransferRow): TransferNotification => ({
  sessionId: row.order_no,
  accountNumber: row.account_number,
  amount: row.amount,
  currency: row.currency,
  payer: {
    name: row.payer_name,
    accountNumber: row.payer_account_no,
    bankName: row.payer_bank_name,
    bankCode: row.payer_bank_code,
  },
  narration: row.narration,
  paidAt: new Date(row.paid_time).toISOString(),
});
