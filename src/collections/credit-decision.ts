import { randomUUID } from "node:crypto";
import { type TierLimits, tierCheck } from "../accounts/tiers.js";
import type { Transaction } from "../core/api-types.js";
import { eventToWrite } from "../events/outbox.js";
import { postHeldArrival } from "../ledger/held.js";
import type { AccountFound, TransferPosting } from "../ledger/ledger-port.js";
import type { TransactionRecord } from "../ledger/ledger-records.js";
import { postTransfer } from "../ledger/posting.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import { accept, beyondLimitRefusal, mismatchOf } from "./acceptance.js";
import { DeclinedCredit } from "./declined.js";
import { transactionView } from "./transaction-listing.js";

// What a notification becomes, decided on what storage read under its locks: refused (the
// acceptance rules), declined (the account's own rules or its tier's limits), held, or credited;
// with its transaction, ledger entries, event and the account's totals. The ingestion path
// (collection-service.ts) hands it to the ledger's port.

/** What ingesting a notification did: recorded it now, or found it recorded already. */
export interface ReceivedTransfer {
  transaction: Transaction;
  duplicate: boolean;
  /**
   * When it was recorded now into an account that expects an amount: the expected amount, the
   * total paid with this transfer and the variance (paid − expected: negative while short), in
   * kobo, for the `payment.received` event. Null otherwise.
   */
  payment: PaymentVariance | null;
}

/** A credit against the account's expected amount, in kobo. */
export interface PaymentVariance {
  expectedAmount: number;
  amountPaid: number;
  variance: number;
}

/** The limits a credit is decided under (the service's options). */
export interface CreditRules {
  /** The largest transfer accepted, in kobo (MAX_TRANSFER_KOBO). */
  maxTransferKobo: number;
  /** What an account of each KYC tier may receive. */
  tierLimits: TierLimits;
}

/**
 * The acceptance rules, then the transfer's transaction, ledger entries and event, from what
 * storage read under its locks (so the clock, `now`, is read there too). Synchronous: on SQLite
 * it runs inside the write.
 */
export function decideCredit(
  transfer: TransferNotification,
  found: AccountFound | undefined,
  now: number,
  rules: CreditRules,
): TransferPosting<ReceivedTransfer> {
  const { account, ledger } = accept(transfer, found, now, rules.maxTransferKobo);
  const businessId = account.business_id;
  // The account's own rules (issue 46, item 6), where the expected amount's always were (before
  // the tier's limits): a credit they do not take is declined, or held; a held one is still
  // checked against the tier's limits below (it did reach the account).
  const mismatch = mismatchOf(transfer, account);
  if (mismatch && account.on_mismatch !== "hold")
    throw new DeclinedCredit(mismatch.code, mismatch.message, businessId);
  // The account's row is held (storage's lock): what it received today and in total cannot
  // move under this check, so two credits racing each other are checked one after the other.
  const { broken, day, onDay } = tierCheck(
    rules.tierLimits,
    Number(account.tier),
    transfer.amount,
    {
      total: Number(account.total_received),
      day: account.received_day,
      onDay: Number(account.received_on_day),
    },
    now,
  );
  if (broken) throw new DeclinedCredit(broken.code, broken.message, businessId);
  const nowIso = new Date(now).toISOString();
  // The business's ledger rows are held, so its transfers take turns: the ordinal follows its
  // last transaction, and so does the recording time, which never goes back within a business
  // (several processes' clocks may), so a time range is an ordinal range.
  const { last, heads } = ledger;
  const ordinal = (last?.ordinal ?? 0) + 1;
  const createdAt = last !== undefined && last.created_at > nowIso ? last.created_at : nowIso;
  const id = `txn_${randomUUID().replaceAll("-", "")}`;
  const posted = mismatch
    ? postHeldArrival(heads, { transactionId: id, amount: transfer.amount, createdAt, received: 0 })
    : postTransfer(heads, {
        transactionId: id,
        amount: transfer.amount,
        schedule: ledger.fee,
        charges: ledger.charges,
        createdAt,
        received: Number(account.total_received),
      });
  if ("beyondLimit" in posted) throw beyondLimitRefusal(transfer, posted.beyondLimit);
  const { fee, charges, entries } = posted;
  const row: TransactionRecord = {
    id,
    business_id: businessId,
    account_id: account.id,
    account_number: transfer.accountNumber,
    ordinal,
    account_ordinal: Number(account.transfer_count) + 1,
    session_id: transfer.sessionId,
    amount: transfer.amount,
    fee,
    vat: charges.vat,
    stamp_duty: charges.stampDuty,
    net_amount: transfer.amount - fee - charges.vat - charges.stampDuty,
    currency: transfer.currency,
    balance_after: posted.available,
    payer_name: transfer.payer.name,
    payer_account_number: transfer.payer.accountNumber,
    payer_bank_name: transfer.payer.bankName,
    payer_bank_code: transfer.payer.bankCode ?? null,
    narration: transfer.narration,
    status: mismatch ? "held" : "successful",
    value_at: transfer.paidAt,
    created_at: createdAt,
  };
  const expected = account.expected_amount === null ? null : Number(account.expected_amount);
  // What counts as received: the transfer's whole amount, before the fee; a held credit only
  // once it is accepted.
  const paid = Number(account.total_received) + (mismatch ? 0 : transfer.amount);
  const payment =
    expected === null || mismatch
      ? null
      : { expectedAmount: expected, amountPaid: paid, variance: paid - expected };
  const transaction = transactionView(row);
  const event = eventToWrite(
    mismatch
      ? {
          businessId,
          type: "payment.held",
          accountNumber: transfer.accountNumber,
          data: { ...transaction, reason: { code: mismatch.code, message: mismatch.message } },
        }
      : {
          businessId,
          type: "payment.received",
          accountNumber: transfer.accountNumber,
          data: { ...transaction, payment },
        },
    createdAt,
  );
  return {
    transaction: row,
    entries,
    heads: heads.values(),
    event,
    accountTotals: {
      total_received: paid,
      transfer_count: Number(account.transfer_count) + 1,
      received_day: day,
      received_on_day: onDay,
    },
    result: { transaction, duplicate: false, payment },
  };
}
