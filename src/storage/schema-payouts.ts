import type { PayoutStatus, SettlementSchedule } from "../core/api-types.js";
import type { HoldPhase } from "../ledger/holds.js";

// Money out: payouts, the ledger postings each made, and the embedded Virtual Bank's record of
// the transfers out it was asked for. Timestamps as in schema.ts; money in kobo.

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
  /** The settlement this payout is (null: a payout or a refund). */
  settlement_id: string | null;
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

/** A business's settlement account, schedule and reserve (no row: manual, no account). */
export interface SettlementTermsTable {
  business_id: string;
  bank_code: string | null;
  bank_name: string | null;
  account_number: string | null;
  /** The name the bank's name enquiry gave when the account was set. */
  account_name: string | null;
  /** When the account was set: no settlement goes to it for SETTLEMENT_COOL_OFF_HOURS after. */
  account_set_at: string | null;
  schedule: SettlementSchedule;
  /** `HH:MM` in Africa/Lagos, for a daily schedule. */
  daily_at: string | null;
  /** Kobo kept back from each settlement. */
  reserve_kobo: number;
  updated_at: string;
}

/** A settlement: a payout of the available balance to the business's account, and what it covered. */
export interface SettlementsTable {
  /** `stl_` and 32 hex digits. */
  id: string;
  business_id: string;
  payout_id: string;
  trigger: SettlementSchedule;
  /** A daily settlement's day in Africa/Lagos (`YYYY-MM-DD`): one a day per business. */
  period: string | null;
  /** The business's transactions with ordinals in (covered_after, covered_through]. */
  covered_after: number;
  covered_through: number;
  transaction_count: number;
  /** When the first and the last covered transaction were recorded (null: none covered). */
  first_recorded_at: string | null;
  last_recorded_at: string | null;
  created_at: string;
}
