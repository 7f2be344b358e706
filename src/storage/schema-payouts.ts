import type { HoldPhase } from "../ledger/holds.js";

// Money out: payouts, the ledger postings each made, and the embedded Virtual Bank's record of
// the transfers out it was asked for. Timestamps as in schema.ts; money in kobo.

export type PayoutStatus = "pending" | "successful" | "failed" | "reversed";

/** A payout: where a business sent money, where it stands, and when the bank is next asked. */
export interface PayoutsTable {
  /** `po_` and 32 hex digits: also the reference the bank is asked with (it executes it once). */
  id: string;
  business_id: string;
  /** The business's own reference (its id when it gave none): unique within the business. */
  reference: string;
  amount: number;
  fee: number;
  currency: string;
  bank_code: string;
  bank_name: string;
  account_number: string;
  /** The name the bank's name enquiry gave, when the payout was made. */
  account_name: string;
  narration: string;
  /** SHA-256 of what was asked (amount, bank, account, narration): a reused reference must match. */
  fingerprint: string;
  status: PayoutStatus;
  failure_reason: string | null;
  /** The inbound transaction this payout refunds, if it is a refund. */
  refund_of: string | null;
  created_at: string;
  updated_at: string;
  /** When the bank first acknowledged the transfer (null: not yet known to have it). */
  submitted_at: string | null;
  /** How often the bank was asked about it. */
  checks: number;
  /** When the tracker next asks the bank (null once final). */
  next_check_at: string | null;
}

export type PayoutPhase = HoldPhase;

/** One ledger posting of a payout: one row per step (1 hold, 2 post or void, 3 reversal). Append-only. */
export interface PayoutPostingsTable {
  /** `pst_` and 32 hex digits: the ledger entries' transaction_id. */
  id: string;
  payout_id: string;
  business_id: string;
  phase: PayoutPhase;
  step: number;
  created_at: string;
}

/** The embedded Virtual Bank's transfers out, keyed by the service's reference (executed once). */
export interface VirtualBankPayoutsTable {
  reference: string;
  bank_code: string;
  account_number: string;
  account_name: string;
  amount: number;
  /** What the destination always does (its sandbox outcome). */
  outcome: "successful" | "failed" | "reversed";
  accepted_at: string;
  /** When it stops being pending (successful or failed). */
  settles_at: string;
  /** When a reversing destination sends it back (null: never). */
  reverses_at: string | null;
  /** The last status the bank told the service of. */
  notified: PayoutStatus;
}
