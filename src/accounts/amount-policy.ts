import type { AmountPolicy, PaymentProgress, PaymentStatus } from "../core/api-types.js";

// What an expected amount means for the transfers a temporary account takes, and how far along
// its payment is. Pure: the acceptance rules and the account's detail both read it.

/** The policy an account with an expected amount gets when none is sent. */
export const DEFAULT_AMOUNT_POLICY: AmountPolicy = "exact";

export function paymentProgress(expected: number | null, paid: number): PaymentProgress {
  if (expected === null) return { amountPaid: paid, amountOutstanding: null, paymentStatus: null };
  let paymentStatus: PaymentStatus = "paid";
  if (paid === 0) paymentStatus = "pending";
  else if (paid < expected) paymentStatus = "partially_paid";
  else if (paid > expected) paymentStatus = "overpaid";
  return { amountPaid: paid, amountOutstanding: Math.max(0, expected - paid), paymentStatus };
}

/** Why a policy refuses a transfer: paid already, or an amount it does not take. */
export type PolicyRefusal =
  | { code: "ALREADY_PAID" }
  | { code: "AMOUNT_MISMATCH"; accepts: "exactly" | "at least" };

/**
 * Whether an account expecting `expected` kobo under `policy`, having taken `transfers`
 * transfers totalling `paid`, takes one more of `amount`:
 * - exact: one transfer of exactly the amount;
 * - atLeast: one transfer of at least the amount, an overpayment credited in full;
 * - accumulate: any transfers until their total reaches the amount; the one that reaches it is
 *   taken in full (so the total may pass it), then no more.
 */
export function policyRefusal(
  policy: AmountPolicy,
  expected: number,
  paid: number,
  transfers: number,
  amount: number,
): PolicyRefusal | undefined {
  const done = policy === "accumulate" ? paid >= expected : transfers > 0;
  if (done) return { code: "ALREADY_PAID" };
  if (policy === "exact" && amount !== expected) return { code: "AMOUNT_MISMATCH", accepts: "exactly" };
  if (policy === "atLeast" && amount < expected) return { code: "AMOUNT_MISMATCH", accepts: "at least" };
  return undefined;
}
