import type { PayoutStatus, SettlementSchedule } from "../core/api-types.js";
import type { HoldPhase } from "../ledger/holds.js";
import type { PayoutRecord, SettlementRecord } from "../ledger/ledger-records.js";

// Money out: payouts, the ledger postings each made, and the embedded Virtual Bank's record of
// the transfers out it was asked for. Timestamps as in schema.ts; money in kobo.

/** A payout: its record is the ledger port's (what a payout's posting writes). */
export type PayoutsTable = PayoutRecord;

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
  outcome: "successful" | "failed" | "reversed" | "unknown_successful" | "unknown_failed";
  /** The NIP session id it made for the transfer (null: recorded before migration 0041). */
  session_id: string | null;
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

/** A settlement: its record is the ledger port's (written with its payout's posting). */
export type SettlementsTable = SettlementRecord;
