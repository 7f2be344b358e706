import type { Actor } from "../core/actor.js";
import type { EventToWrite } from "../core/event-to-write.js";
import { creditNotHeld } from "../errors.js";
import { eventToWrite } from "../events/outbox.js";
import type { CreditBlockWrite, HeldCreditWrite } from "../ledger/ledger-port.js";
import type { HeldCreditRecord, PayoutRecord, TransactionRecord } from "../ledger/ledger-records.js";
import { blockReturnedBy } from "../storage/credit-block-repository.js";
import type { Executor } from "../storage/executor.js";
import { findHeldCredit } from "../storage/held-credit-repository.js";
import { payoutView } from "./payout-model.js";

// A held credit's return (issue 46, item 6): a refund of its whole amount to its payer whose hold
// takes the money from `held` (ledger/holds.ts's source). The decision is written with the refund's
// hold, under the same ledger locks; a return the bank does not make (or sends back) makes the
// credit held again.

/**
 * The decision a return writes with its refund: the credit `returned` by `payout`, refused (422
 * CREDIT_NOT_HELD) unless it is held now.
 */
export async function returnDecision(
  trx: Executor,
  payment: TransactionRecord,
  payout: PayoutRecord,
  actor: Actor,
  event: (credit: HeldCreditRecord) => EventToWrite,
): Promise<HeldCreditWrite> {
  const found = await findHeldCredit(trx, payment.id);
  if (found && found.state !== "held") throw creditNotHeld(`it was ${found.state}`);
  const record: HeldCreditRecord = {
    transaction_id: payment.id,
    business_id: payment.business_id,
    state: "returned",
    fee: 0,
    vat: 0,
    stamp_duty: 0,
    posting_id: null,
    refund_id: payout.id,
    decided_at: payout.created_at,
    decided_by_type: actor.type,
    decided_by_id: actor.id,
  };
  return { record, ...(found ? { from: "held" as const } : {}), events: [event(record)] };
}

/**
 * A return from held that failed or came back (the refund's void or reversal gave the money back
 * to held): its held credit held again, or its operator's block standing again (item 7).
 */
export async function heldAgain(
  trx: Executor,
  refund: PayoutRecord,
  at: string,
): Promise<{ credit?: HeldCreditWrite; block?: CreditBlockWrite } | undefined> {
  if (refund.refund_of === null) return undefined;
  const block = await blockReturnedBy(trx, refund.id);
  if (block?.state === "returned") {
    const record = {
      ...block,
      amount: Number(block.amount),
      state: "blocked" as const,
      refund_id: null,
      decided_at: null,
      decided_by_type: null,
      decided_by_id: null,
    };
    return { block: { record, from: "returned", events: [] } };
  }
  const found = await findHeldCredit(trx, refund.refund_of);
  if (found?.state !== "returned" || found.refund_id !== refund.id) return undefined;
  return {
    credit: {
      record: { ...found, state: "held", refund_id: null, decided_at: at },
      from: "returned",
      events: [],
    },
  };
}

/**
 * `payment.returned`: `amount` of `payment` sent back to its payer by the refund `payout` (a held
 * credit's return, or an operator's block's with the block as `extra`).
 */
export function returnedEvent(
  payment: TransactionRecord,
  payout: PayoutRecord,
  amount: number,
  extra: Record<string, unknown> = {},
): EventToWrite {
  return eventToWrite(
    {
      businessId: payment.business_id,
      type: "payment.returned",
      accountNumber: payment.account_number,
      data: {
        transactionId: payment.id,
        accountNumber: payment.account_number,
        amount,
        sessionId: payment.session_id,
        status: "returned",
        refund: payoutView(payout),
        returnedAt: payout.created_at,
        ...extra,
      },
    },
    payout.created_at,
  );
}
