import { refundExceedsPayment } from "../core/money-out-errors.js";
import { AMOUNT_OUT_STATUSES } from "../ledger/holds.js";
import { formatNaira } from "../ledger/kobo.js";
import type { Executor } from "../storage/executor.js";
import { refundedAmounts } from "../storage/payout-repository.js";
import type { PayoutOrder } from "./payout-model.js";

// A refund's bound, checked in the hold's transaction under the ledger's locks: what is left of
// its payment after the refunds pending and successful.

/** 422 unless `amount` fits in what is left of the payment after its refunds pending and successful. */
export async function assertRefundable(
  trx: Executor,
  refund: NonNullable<PayoutOrder["refund"]>,
  amount: number,
): Promise<void> {
  const refunded =
    (await refundedAmounts(trx, [refund.transactionId], AMOUNT_OUT_STATUSES)).get(refund.transactionId) ?? 0;
  if (refunded + amount > refund.paymentAmount) {
    throw refundExceedsPayment(
      `${formatNaira(amount)} would bring the refunds of this ${formatNaira(refund.paymentAmount)} payment to ${formatNaira(refunded + amount)}: ${formatNaira(refund.paymentAmount - refunded)} is left to refund`,
    );
  }
}
