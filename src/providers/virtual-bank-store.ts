import type { PayoutStatus } from "../core/api-types.js";
import type { TransferNotification } from "./transfer-notification.js";

// The Virtual Bank's store, as the bank needs it (a port): storage implements it in the service's
// database (storage/virtual-bank-store.ts, with a sqlite/ and a postgres/ opening of accounts,
// chosen in compose/services.ts), and the Virtual Bank server in its own file (bank/bank-store.ts).

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
export interface IsoPosition {
  time: string;
  id: string;
}

/**
 * A transfer out as the Virtual Bank records it: its outcome is fixed by its destination. The
 * `unknown_*` outcomes first answer as a NIP timeout would (issue 46): FAILED with code 97 to the
 * transfer, PENDING with 01 to a query, until they settle as a success or a refusal (25).
 */
export interface BankPayoutRecord {
  reference: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  amount: number;
  outcome: "successful" | "failed" | "reversed" | "unknown_successful" | "unknown_failed";
  /** The NIP session id the bank gave the transfer (null: recorded before the bank gave them). */
  sessionId: string | null;
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
  if (record.outcome === "failed" || record.outcome === "unknown_failed") return "failed";
  if (record.reversesAt !== null && now >= record.reversesAt) return "reversed";
  return "successful";
}
