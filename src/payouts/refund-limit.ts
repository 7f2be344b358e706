import { refundExceedsPayment } from "../core/money-out-errors.js";
import { AMOUNT_OUT_STATUSES } from "../ledger/holds.js";
import { formatNaira } from "../ledger/kobo.js";
import { blockedAmounts } from "../storage/credit-block-repository.js";
import type { Executor } from "../storage/executor.js";
import { refundedAmounts } from "../storage/payout-repository.js";
import type { PayoutOrder } from "./payout-model.js";

// A refund's bound, checked in the hold's transaction under the ledger's locks: what is left of
// its payment after the refunds pending and successful, and after what an operator's block holds
// of it (issue 46, item 7: that part goes back to the payer through the block, if at all).

/**
 * 422 unless `amount` fits in what is left of the payment after its refunds pending and
 * successful and its standing blocks (but the one this refund returns).
 */
export async function assertRefundable(
  trx: Executor,
  refund: NonNullable<PayoutOrder["refund"]>,
  amount: number,
): Promise<void> {
  const id = refund.transactionId;
  const refunded = (await refundedAmounts(trx, [id], AMOUNT_OUT_STATUSES)).get(id) ?? 0;
  const blocked = (await blockedAmounts(trx, [id], refund.blockId)).get(id) ?? 0;
  if (refunded + blocked + amount > refund.paymentAmount) {
    const left = refund.paymentAmount - refunded - blocked;
    throw refundExceedsPayment(
      `${formatNaira(amount)} would bring the refunds of this ${formatNaira(refund.paymentAmount)} payment to ${formatNaira(refunded + amount)}${blocked > 0 ? `, and ${formatNaira(blocked)} of it is blocked (a dispute by the payer's bank)` : ""}: ${formatNaira(left)} is left to refund`,
    );
  }
}
