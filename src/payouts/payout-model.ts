import { createHash } from "node:crypto";
import type { EventType, Payout, PayoutInput, PayoutStatus, ResolvedBankAccount } from "../core/api-types.js";
import type { PayoutsCounted } from "../core/payouts-counted.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { chargeLines } from "../ledger/charges.js";
import { AMOUNT_OUT_STATUSES, type HoldPhase as PayoutPhase } from "../ledger/holds.js";
import type { Decided } from "../ledger/ledger-port.js";
import type { PayoutRecord, SettlementRecord } from "../ledger/ledger-records.js";
import type { BankPayoutState } from "../providers/payout-rail.js";
import type { Executor } from "../storage/executor.js";
import { DEFAULT_PAYOUT_NARRATION } from "./validation.js";

// What a payout is, apart from how it is made: its view in the API, what a reused reference must
// match, an order to pay, and the phases (with their events) that move it between statuses.

export const payoutView = (row: PayoutRecord): Payout => ({
  id: row.id,
  amount: Number(row.amount),
  fee: Number(row.fee),
  charges: chargeLines({ vat: Number(row.vat), stampDuty: Number(row.stamp_duty) }),
  currency: row.currency,
  bankCode: row.bank_code,
  bankName: row.bank_name,
  accountNumber: row.account_number,
  accountName: row.account_name,
  narration: row.narration,
  reference: row.reference,
  status: row.status,
  failureReason: row.failure_reason,
  sessionId: row.session_id,
  refundOf: row.refund_of,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** What the bank's answer says besides a status: its reason, the transfer's NIP session id and the answer's NIP code. */
export type BankSaid = Pick<BankPayoutState, "reason" | "sessionId" | "code">;

/** The most NIP codes a payout keeps: the first ones seen, then the latest. */
const MOST_CODES = 12;

/**
 * The codes a payout's bank answered with, `code` added unless it is the last one seen ("97,01":
 * a timeout, then status unknown): what the console shows beside a payout that needs attention.
 */
export function withCode(codes: string | null, code: string | null): string | null {
  if (code === null) return codes;
  const seen = codes === null ? [] : codes.split(",");
  if (seen.at(-1) === code) return codes;
  const kept = [...seen, code];
  return (
    kept.length > MOST_CODES ? [...kept.slice(0, MOST_CODES / 2), ...kept.slice(-MOST_CODES / 2)] : kept
  ).join(",");
}

/** What a reused reference must match: the payout asked for, not its id or times. */
export function fingerprintOf(asked: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(asked)).digest("hex");
}

/**
 * Who asks for a payout: the API (the business's API-payouts switch applies), a signed-in
 * dashboard user (their two-factor code applies, asked by the dashboard), or a settlement (to the
 * business's own account after its cool-off: neither the switch nor the limits apply).
 */
export type PayoutChannel = "api" | "dashboard" | "settlement";

/** How a payout is asked for: its channel, and the unit of work of the API request's answer. */
export interface PayoutRequest {
  channel: PayoutChannel;
  unit?: UnitOfWork;
}

/** A payout to make: how much, where to (resolved), and what it is for. */
export interface PayoutOrder {
  channel: PayoutChannel;
  amount: number;
  destination: ResolvedBankAccount;
  narration: string;
  /** The business's own reference (the payout's id when none). */
  reference?: string;
  /** What a reused reference must match (fingerprintOf). */
  fingerprint: string;
  /** A refund: the payment it pays back, whose amount its refunds never exceed in total. */
  refund?: {
    transactionId: string;
    paymentAmount: number;
    /** The operator's block this refund returns (its own amount is not counted against it). */
    blockId?: string;
  };
  /**
   * A held credit's return (issue 46): the hold takes the money from `held`, with no fee, no
   * charges and no limit, and `decide` says, under the ledger locks, what the credit's decision
   * is (it refuses one that is not held), or the block's (an operator's block returned).
   */
  heldReturn?: {
    decide: (trx: Executor, payout: PayoutRecord) => Promise<Pick<Decided<never>, "credit" | "block">>;
    /**
     * An operator's return of a blocked credit (item 7): the business's verification does not
     * hold it up, for the money is the payer's, due back within a business day.
     */
    byOperator?: boolean;
  };
  /** A settlement: its id, and its own row, read for in the hold's transaction under the ledger locks. */
  settlement?: { id: string; cover: (trx: Executor, payout: PayoutRecord) => Promise<SettlementRecord> };
}

/**
 * What counts toward a business's payout limits: payouts whose amount is out of its available
 * balance (ledger/holds.ts), but not settlements, its money to its own account.
 */
export const LIMIT_COUNTS: PayoutsCounted = { statuses: AMOUNT_OUT_STATUSES, settlements: false };

/** The postings (and events) that take a payout from one status to another, in order. */
export const TRANSITIONS: Partial<Record<`${PayoutStatus}>${PayoutStatus}`, PayoutPhase[]>> = {
  "pending>successful": ["post"],
  "pending>failed": ["void"],
  // The bank reports a reversal of a payout whose success the service never heard of: both.
  "pending>reversed": ["post", "reversal"],
  "successful>reversed": ["reversal"],
};

export const STATUS_AFTER: Record<PayoutPhase, PayoutStatus> = {
  hold: "pending",
  post: "successful",
  void: "failed",
  reversal: "reversed",
};

/**
 * A phase's event: a refund's end is `refund.*`, a settlement's `settlement.*`, anything else (a
 * refund's or a settlement's reversal too) `payout.*`.
 */
export function eventOf(payout: PayoutRecord, phase: PayoutPhase): EventType {
  const status = STATUS_AFTER[phase];
  if (status === "successful" || status === "failed") {
    if (payout.refund_of !== null) return `refund.${status}`;
    if (payout.settlement_id !== null) return `settlement.${status}`;
  }
  return `payout.${status as "successful" | "failed" | "reversed"}`;
}

/** What makes two orders with one reference the same payout: amount, destination and narration. */
export function payoutFingerprint(input: PayoutInput): string {
  const narration = input.narration ?? DEFAULT_PAYOUT_NARRATION;
  return fingerprintOf([input.amount, input.bankCode, input.accountNumber, narration]);
}
