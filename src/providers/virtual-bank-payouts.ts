import { providerRejected } from "../errors.js";
import { SANDBOX_PAYEES, type SandboxPayee } from "./bank-directory.js";
import { NIP_CODES, nipSessionId } from "./nip.js";
import {
  type BankPayoutState,
  type BankTransferAnswer,
  SANDBOX_FAILURE_REASON,
  SANDBOX_REVERSAL_REASON,
  type TransferOutRequest,
} from "./payout-rail.js";
import { type BankPayoutRecord, payoutStatusAt } from "./virtual-bank-store.js";

// The Virtual Bank's transfers out: each sandbox destination's fixed outcome (bank-directory.ts),
// as the bank records a transfer to it and as it answers for that transfer at each moment after.
// The bank (virtual-bank.ts) keeps the records; this decides what they are and say.

/** How long a transfer out stays pending, and how long after success a reversing one comes back. */
export interface PayoutDelays {
  settleMs: number;
  reverseMs: number;
}

/** The sandbox promises a final state within 10 s and a reversal within 30 s. */
export const DEFAULT_PAYOUT_DELAYS: PayoutDelays = { settleMs: 2_000, reverseMs: 10_000 };

/** The sandbox's destination account with this bank code and number, if it is one. */
export const sandboxPayee = (bankCode: string, accountNumber: string): SandboxPayee | undefined =>
  SANDBOX_PAYEES.find((p) => p.bankCode === bankCode && p.accountNumber === accountNumber);

/**
 * A transfer out as the bank records it when it takes it at `now`: its outcome the destination's,
 * pending for `settleMs`, a reversing destination's sent back `reverseMs` after that. Any account
 * but a sandbox destination is refused, as its name enquiry is.
 */
export function sandboxPayoutRecord(
  request: TransferOutRequest,
  institutionCode: string,
  now: number,
  delays: PayoutDelays,
): BankPayoutRecord {
  const payee = sandboxPayee(request.bankCode, request.accountNumber);
  if (!payee || payee.outcome === "unresolvable") {
    throw providerRejected(`no account ${request.accountNumber} at bank ${request.bankCode}`);
  }
  const settles = now + delays.settleMs;
  return {
    reference: request.reference,
    bankCode: request.bankCode,
    accountNumber: request.accountNumber,
    accountName: request.accountName,
    amount: request.amount,
    outcome: payee.outcome,
    sessionId: nipSessionId(institutionCode, now),
    acceptedAt: new Date(now).toISOString(),
    settlesAt: new Date(settles).toISOString(),
    reversesAt: payee.outcome === "reversed" ? new Date(settles + delays.reverseMs).toISOString() : null,
    notified: "pending",
  };
}

/**
 * A transfer out's answer at `now`, as the bank gives it to a transfer, a status query or a
 * notification: its status, the NIP code and the bank's reason. Before it settles, an
 * `unknown_*` destination answers a NIP timeout (FAILED 97 to the transfer, PENDING 01 to a
 * query); any other is in progress (PENDING 09).
 */
export function payoutAnswer(
  record: BankPayoutRecord,
  asked: "transfer" | "query" | "notification",
  now: number,
): BankTransferAnswer {
  const status = payoutStatusAt(record, new Date(now).toISOString());
  const unknown = record.outcome === "unknown_successful" || record.outcome === "unknown_failed";
  const answer = (bankStatus: BankTransferAnswer["bankStatus"], code: string, reason: string | null) => ({
    reference: record.reference,
    bankStatus,
    code,
    sessionId: record.sessionId,
    reason,
  });
  if (status === "pending") {
    if (!unknown) return answer("pending", "09", null);
    return asked === "transfer"
      ? answer("failed", "97", NIP_CODES["97"]?.meaning ?? null)
      : answer("pending", "01", null);
  }
  if (status === "failed") {
    return record.outcome === "unknown_failed"
      ? answer("failed", "25", NIP_CODES["25"]?.meaning ?? null)
      : answer("failed", "06", payoutReason(status));
  }
  return answer(status, "00", payoutReason(status));
}

/** The sandbox's reason for a status: why it failed or came back; null otherwise. */
export const payoutReason = (status: BankPayoutState["status"]) =>
  status === "failed" ? SANDBOX_FAILURE_REASON : status === "reversed" ? SANDBOX_REVERSAL_REASON : null;
