import type { PayoutStatus, SettlementSchedule } from "../core/api-types.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import type { HoldPhase } from "./holds.js";
import type { LedgerAccountKind, LedgerAccountToOpen } from "./kinds.js";
import type { AccountHead, ChainedEntry } from "./posting.js";

/** A business's ledger accounts' heads by kind, as a posting moves them along. */
export type Heads = Map<LedgerAccountKind, AccountHead>;

/** What a posting writes in the ledger: its entries, under its id, and the heads it leaves. */
export interface LedgerPosting {
  /** The posting's id: the entries' transaction id (a collection's transaction, a payout's posting). */
  id: string;
  businessId: string;
  entries: readonly ChainedEntry[];
  /** The heads the entries moved, after them. */
  heads: Iterable<AccountHead>;
}

/**
 * A payout: where a business sent money, where it stands, and when the bank is next asked; the
 * payouts table's row, written as it is.
 */
export interface PayoutRecord {
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

/**
 * A settlement: a payout of the available balance to the business's account, and what it
 * covered; the settlements table's row, written as it is.
 */
export interface SettlementRecord {
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

/** One phase of a payout on the ledger: its step (the payout's posting) and its entries. */
export interface PhasePosting extends LedgerPosting {
  phase: HoldPhase;
  createdAt: string;
}

/**
 * Everything a payout's posting writes (a payout made, or moved by what its bank says; a refund
 * and a settlement are payouts): the payout's row, each phase's step, entries and heads, the
 * events with their deliveries, and a settlement's own row.
 */
export interface PayoutPosting<Event> {
  businessId: string;
  /** The payout made, or moved from the status it was read at under the locks to `moved`'s. */
  payout: { made: PayoutRecord } | { moved: PayoutRecord; from: PayoutStatus };
  /** In order; each phase's heads are those it moved, after it. */
  phases: readonly PhasePosting[];
  events: readonly Event[];
  settlement?: SettlementRecord;
}

/** What a money-out write decided under the locks: what it posts (nothing: no write) and its answer. */
export interface Decided<R, Event> {
  posting?: PayoutPosting<Event>;
  result: R;
}

/**
 * The ledger's port for money out (payouts, refunds, settlements, reversals), declared here with
 * its rules and implemented once per dialect in storage: one write transaction (`Tx`) whose
 * decision reads under the locks it takes, then one method's write of everything the posting
 * writes, with the request's stored answer (Formance's `CommitTransaction`, the store bound to
 * the transaction the controller runs).
 */
export interface PayoutLedger<Tx, Event> {
  /**
   * The business's heads, taken for the rest of the transaction in id order (the order transfers
   * take them in), after opening those of `accounts` it does not have yet.
   */
  lockedHeads(
    tx: Tx,
    businessId: string,
    accounts: readonly LedgerAccountToOpen[],
    now: string,
  ): Promise<Heads>;
  /**
   * One transaction: `decide` reads what it needs under the locks it takes and says what to post;
   * then the posting is written, whole, with `unit`'s answer, and committed. A refusal thrown by
   * `decide` writes nothing.
   */
  post<R>(decide: (tx: Tx) => Promise<Decided<R, Event>>, unit?: UnitOfWork): Promise<R>;
}
