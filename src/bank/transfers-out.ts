import type { PayoutStatus } from "../core/api-types.js";
import type { BankPayoutRecord } from "../providers/virtual-bank-store.js";

// The Virtual Bank server's transfers out as its own file keeps them (bank-database.ts's
// transfers_out): the bank is another party, so these are its columns, not the service's
// virtual_bank_payouts (whose row type is storage's).

/** A transfer out, column by column, as GET /sandbox/transfers-out lists it. */
export interface TransferOutRow {
  reference: string;
  bank_code: string;
  account_number: string;
  account_name: string;
  amount: number;
  outcome: BankPayoutRecord["outcome"];
  session_id: string | null;
  accepted_at: string;
  settles_at: string;
  reverses_at: string | null;
  notified: PayoutStatus;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
}

/** A transfer out whose change is due to be told, and how many tellings failed so far. */
export type DueTransferOut = BankPayoutRecord & { attempts: number };

/** transfers_out's columns read as the provider's record (a select list: SQLite keeps the aliases' case). */
export const AS_PAYOUT_RECORD = `reference, bank_code as bankCode, account_number as accountNumber,
  account_name as accountName, amount, outcome, session_id as sessionId, accepted_at as acceptedAt, settles_at as settlesAt,
  reverses_at as reversesAt, notified`;

/** Inserts a transfer out from the provider's record, unless its reference is known (named parameters). */
export const INSERT_PAYOUT_ONCE = `insert into transfers_out (reference, bank_code, account_number, account_name,
    amount, outcome, session_id, accepted_at, settles_at, reverses_at, notified)
  values (@reference, @bankCode, @accountNumber, @accountName, @amount, @outcome, @sessionId, @acceptedAt, @settlesAt,
    @reversesAt, @notified)
  on conflict (reference) do nothing`;
