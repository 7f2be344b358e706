import { audit, blockView } from "../collections/credit-block-records.js";
import type { CreditBlocks } from "../collections/credit-blocks.js";
import type { Actor } from "../core/actor.js";
import type { Payout } from "../core/api-types.js";
import { blockNotStanding, transactionNotFound } from "../errors.js";
import type { CreditBlockWrite } from "../ledger/ledger-port.js";
import type { CreditBlockRecord, PayoutRecord, TransactionRecord } from "../ledger/ledger-records.js";
import { findCreditBlock } from "../storage/credit-block-repository.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { findTransaction } from "../storage/transaction-repository.js";
import { returnedEvent } from "./held-returns.js";
import { fingerprintOf } from "./payout-model.js";
import type { PayoutService } from "./payout-service.js";
import type { RefundService } from "./refunds.js";

// An operator's block returned to the payer (issue 46, item 7): a refund of the block's amount to
// the credit's payer whose hold takes the money from held (where the block put it), with no fee, no
// charges and no limit, made whatever the business's verification (the money is the payer's). The
// block moves to `returned` with the refund's hold, under the same ledger locks, and
// `payment.returned` is sent; a refund the bank does not make stands the block again
// (held-returns.ts's heldAgain).

/** What the payer's bank reads on a disputed credit's return. */
export const BLOCK_RETURN_NARRATION = "Returned: credit disputed by your bank";

export interface BlockReturnsOptions {
  storage: Storage;
  blocks: CreditBlocks;
  payouts: PayoutService;
  refunds: RefundService;
}

export class BlockReturns {
  constructor(private readonly options: BlockReturnsOptions) {}

  /**
   * Returns a standing block's amount to its credit's payer: 404 BLOCK_NOT_FOUND, 422
   * BLOCK_NOT_STANDING (released or returned already), 422 ACCOUNT_NOT_RESOLVED when the payer's
   * account cannot be named. Asked twice, the second is refused as not standing.
   */
  async returnBlock(actor: Actor, blockId: string): Promise<Payout> {
    const { storage } = this.options;
    const block = await this.options.blocks.find(blockId);
    if (block.state !== "blocked") throw blockNotStanding(block.state);
    const payment = await findTransaction(storage.db, block.business_id, block.transaction_id);
    if (!payment) throw transactionNotFound();
    const amount = Number(block.amount);
    return this.options.payouts.hold(
      { businessId: block.business_id, businessName: "" },
      {
        channel: "api",
        amount,
        destination: await this.options.refunds.payerOf(payment),
        narration: BLOCK_RETURN_NARRATION,
        fingerprint: fingerprintOf(["block-return", block.id]),
        refund: { transactionId: payment.id, paymentAmount: Number(payment.amount), blockId: block.id },
        heldReturn: {
          byOperator: true,
          decide: async (trx, payout) => ({
            block: await returnDecision(trx, block.id, payment, payout, actor),
          }),
        },
      },
    );
  }
}

/** The block's move a return writes with its refund's hold: `returned` by `payout`, refused unless it stands. */
async function returnDecision(
  trx: Executor,
  blockId: string,
  payment: TransactionRecord,
  payout: PayoutRecord,
  actor: Actor,
): Promise<CreditBlockWrite> {
  const standing = await findCreditBlock(trx, blockId);
  if (standing?.state !== "blocked") throw blockNotStanding(standing?.state ?? "removed");
  const record: CreditBlockRecord = {
    ...standing,
    amount: Number(standing.amount),
    state: "returned",
    refund_id: payout.id,
    decided_at: payout.created_at,
    decided_by_type: actor.type,
    decided_by_id: actor.id,
  };
  await audit(trx, actor, "credit.returned", record, { refundId: payout.id });
  const event = returnedEvent(payment, payout, record.amount, { block: blockView(record, payment) });
  return { record, from: "blocked", events: [event] };
}
