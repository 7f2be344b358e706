import type { PayoutStatus } from "../core/api-types.js";
import { DEFAULT_NIP_READING, type NipReading, statusFromBank } from "./nip.js";

/**
 * The bank's side of a payout (issue 26, item 7): a transfer out keyed by the service's unique
 * reference, which the bank executes at most once however often it is asked, and a query by that
 * reference. The embedded Virtual Bank and the HTTP bank both implement it.
 *
 * Implementations throw `providerRejected(message)` when the bank refuses the transfer itself
 * (it did not and will not act: the payout fails with that message) and `providerUnavailable()`
 * or `providerOutcomeUnknown()` when it cannot say: the payout stays pending and is asked about
 * again, under the same reference, until the bank gives a final answer.
 */
export interface PayoutRail {
  /** Sends money out; the same reference again answers the transfer already made, never a second one. */
  transferOut(request: TransferOutRequest): Promise<BankPayoutState>;
  /** The bank's transfer with this reference; undefined when it has none (it never got the request). */
  queryTransfer(reference: string): Promise<BankPayoutState | undefined>;
}

export interface TransferOutRequest {
  /** The service's reference: the payout's id. */
  reference: string;
  /** Kobo. */
  amount: number;
  bankCode: string;
  accountNumber: string;
  /** The name the service's name enquiry gave (a bank may check it again). */
  accountName: string;
  narration: string;
}

/**
 * A transfer out as the service reads the bank's answer: still pending, or final (and, after
 * success, reversed). `status` is final only when the bank's status and its NIP code agree
 * (providers/nip.ts's statusFromBank): a "failed" with an unknown code is pending.
 */
export interface BankPayoutState {
  reference: string;
  status: PayoutStatus;
  /** Why it failed or came back (the bank's words); null otherwise. */
  reason: string | null;
  /** The transfer's NIP session id, once the bank has given one. */
  sessionId: string | null;
  /** The NIP response code of this answer (null: the bank gave none, as when it refused the request itself). */
  code: string | null;
}

/** A transfer out as the bank answers it, before the service reads it: its own status and NIP code. */
export interface BankTransferAnswer {
  reference: string;
  bankStatus: PayoutStatus;
  code: string;
  sessionId: string | null;
  reason: string | null;
}

/** The service's reading of a bank's answer (statusFromBank): the one place a status is decided. */
export function readTransferAnswer(
  answer: BankTransferAnswer,
  reading: NipReading = DEFAULT_NIP_READING,
): BankPayoutState {
  const status = statusFromBank(answer.bankStatus, answer.code, reading);
  return {
    reference: answer.reference,
    status,
    reason: status === "failed" || status === "reversed" ? answer.reason : null,
    sessionId: answer.sessionId,
    code: answer.code,
  };
}

/** The sandbox's reasons, as a bank would word them. */
export const SANDBOX_FAILURE_REASON = "Account dormant";
export const SANDBOX_REVERSAL_REASON = "Returned by the receiving bank";
