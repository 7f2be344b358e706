import { type Actor, CLI, type ForBusiness } from "../core/actor.js";
import type { Payout, RefundInput } from "../core/api-types.js";
import { accountNotResolved, refundExceedsPayment } from "../core/money-out-errors.js";
import { check, isSent, parsedBy } from "../core/validation.js";
import { displayTextSchema } from "../display-name.js";
import {
  AppError,
  creditHeld,
  creditNotHeld,
  ErrorCode,
  isAppError,
  transactionNotFound,
} from "../errors.js";
import { AMOUNT_OUT_STATUSES } from "../ledger/holds.js";
import { formatNaira, koboSchema } from "../ledger/kobo.js";
import type { TransactionRecord } from "../ledger/ledger-records.js";
import { blockedAmounts } from "../storage/credit-block-repository.js";
import type { Storage } from "../storage/database.js";
import { expiredHeldCredits, findHeldCredit } from "../storage/held-credit-repository.js";
import { refundedAmounts } from "../storage/payout-repository.js";
import { findTransaction } from "../storage/transaction-repository.js";
import type { BankService } from "./banks.js";
import { returnDecision, returnedEvent } from "./held-returns.js";
import { fingerprintOf, type PayoutRequest } from "./payout-model.js";
import type { PayoutService } from "./payout-service.js";
import { MAX_PAYOUT_NARRATION_LENGTH, PAYOUT_FIELDS } from "./validation.js";

// Refunds (issue 26, item 5): a payout to the payer of one of the business's inbound
// transactions, the whole payment by default or a part of it. A transaction's refunds never
// exceed its amount in total, counting those pending and successful (a failed one frees its
// amount); the payout service checks that under the business's ledger locks.

/** A transaction id as the API gives it; anything else cannot exist. */
const TRANSACTION_ID = /^txn_[0-9a-f]{32}$/;
/** The narration of a refund when the business gives no reason. */
export const DEFAULT_REFUND_NARRATION = "Refund";

/** POST /transactions/{id}/refund's body: `amount` (kobo, optional), then `reason` (optional). */
export function parseRefund(body: Record<string, unknown>): RefundInput {
  const input: RefundInput = {};
  if (isSent(body, "amount"))
    input.amount = check(koboSchema("amount", Number.MAX_SAFE_INTEGER), body.amount);
  if (isSent(body, "reason"))
    input.reason = check(displayTextSchema("reason", MAX_PAYOUT_NARRATION_LENGTH, "refuse"), body.reason);
  return input;
}

export const refundInput = parsedBy(parseRefund);

export interface RefundServiceOptions {
  storage: Storage;
  payouts: PayoutService;
  banks: BankService;
}

/** What a held credit's return tells the payer's bank (issue 46). */
export const RETURN_NARRATION = "Returned: payment not accepted";

export class RefundService {
  constructor(private readonly options: RefundServiceOptions) {}

  /**
   * Refunds one of the business's transactions to its payer: 400 for a reference the API's rule
   * refuses, 404 for anything not its own,
   * 422 ACCOUNT_NOT_RESOLVED when the payer's account cannot be named (its bank not given by the
   * bank's notification, or unknown to the name enquiry), 422 REFUND_EXCEEDS_PAYMENT past what is
   * left of the payment; then as any payout (limits, balance, the hold).
   */
  async refund(
    business: ForBusiness,
    transactionId: string,
    input: RefundInput,
    request: PayoutRequest & { reference?: string } = { channel: "api" },
  ): Promise<Payout> {
    const { storage } = this.options;
    // The reference is the business's own, as on POST /payouts: whatever front sends it (the
    // dashboard's form carries one), the API's rule refuses it alike, a 400 before anything is read.
    if (request.reference !== undefined) check(PAYOUT_FIELDS.reference, request.reference);
    const payment = await this.paymentOf(business, transactionId);
    // A held credit is not the business's until accepted: it is returned, from held (issue 46).
    if (payment.status === "held" && (await findHeldCredit(storage.db, payment.id))?.state !== "accepted")
      throw creditHeld();
    const narration = input.reason ?? DEFAULT_REFUND_NARRATION;
    const fingerprint = refundFingerprint(payment.id, input);
    const existing = await this.made(business, payment.id, input, request.reference);
    if (existing) return existing;
    const paymentAmount = Number(payment.amount);
    const refunded =
      (await refundedAmounts(storage.db, [payment.id], AMOUNT_OUT_STATUSES)).get(payment.id) ?? 0;
    // What an operator's block holds of it goes back through the block, if at all (issue 46).
    const blocked = (await blockedAmounts(storage.db, [payment.id])).get(payment.id) ?? 0;
    const left = paymentAmount - refunded - blocked;
    const amount = input.amount ?? left;
    if (amount < 1 || amount > left) {
      throw refundExceedsPayment(
        `${formatNaira(left)} is left to refund of this ${formatNaira(paymentAmount)} payment${blocked > 0 ? ` (${formatNaira(blocked)} of it is blocked: a dispute by the payer's bank)` : ""}`,
      );
    }
    const destination = await this.payerOf(payment);
    return this.options.payouts.hold(
      business,
      {
        channel: request.channel,
        amount,
        destination,
        narration,
        fingerprint,
        refund: { transactionId: payment.id, paymentAmount },
        ...(request.reference === undefined ? {} : { reference: request.reference }),
      },
      request.unit,
    );
  }

  /**
   * The refund this reference already made with the same details, or undefined. What was asked,
   * not what it came to: a form sent twice (the dashboard's reference) answers the refund the
   * first one made, even when that one left nothing more to refund; 409 DUPLICATE_REFERENCE
   * when the reference was used for something else.
   */
  made(
    business: ForBusiness,
    transactionId: string,
    input: RefundInput,
    reference: string | undefined,
  ): Promise<Payout | undefined> {
    if (reference !== undefined) check(PAYOUT_FIELDS.reference, reference);
    return this.options.payouts.byReference(business, reference, refundFingerprint(transactionId, input));
  }

  /**
   * Returns one of the business's held credits to its payer (issue 46, item 6): a refund of its
   * whole amount whose hold takes the money from held, with no fee, and `payment.returned`. 404 for
   * anything not its own; 422 CREDIT_NOT_HELD for one not held (credited as it came, accepted,
   * returned already); 422 ACCOUNT_NOT_RESOLVED when the payer's account cannot be named. A return
   * the bank does not make leaves the credit held again.
   */
  async returnHeld(
    business: ForBusiness,
    actor: Actor,
    transactionId: string,
    request: PayoutRequest = { channel: "api" },
  ): Promise<Payout> {
    const payment = await this.paymentOf(business, transactionId);
    if (payment.status !== "held") throw creditNotHeld("it was credited as it came");
    const decided = await findHeldCredit(this.options.storage.db, payment.id);
    if (decided && decided.state !== "held") throw creditNotHeld(`it was ${decided.state}`);
    const amount = Number(payment.amount);
    return this.options.payouts.hold(
      business,
      {
        channel: request.channel,
        amount,
        destination: await this.payerOf(payment),
        narration: RETURN_NARRATION,
        fingerprint: fingerprintOf(["return", payment.id]),
        refund: { transactionId: payment.id, paymentAmount: amount },
        heldReturn: {
          decide: async (trx, payout) => ({
            credit: await returnDecision(trx, payment, payout, actor, () =>
              returnedEvent(payment, payout, amount),
            ),
          }),
        },
      },
      request.unit,
    );
  }

  /**
   * Returns the held credits neither accepted nor returned that came before `before` (issue 46:
   * HELD_CREDIT_DAYS), up to `limit` a pass. Each return is decided under its business's ledger
   * locks, which read the credit's state again: two processes passing at once return one credit
   * once (the other's return is refused as not held, and skipped). One that cannot be returned (its
   * payer's account cannot be named, its business not verified) stays held and is counted.
   */
  async returnExpired(before: string, limit = 100): Promise<{ returned: string[]; failed: string[] }> {
    const returned: string[] = [];
    const failed: string[] = [];
    for (const { id, business_id } of await expiredHeldCredits(this.options.storage.db, before, limit)) {
      try {
        await this.returnHeld({ businessId: business_id, businessName: "" }, CLI, id, { channel: "api" });
        returned.push(id);
      } catch (error) {
        if (isAppError(error) && error.code === ErrorCode.CREDIT_NOT_HELD) continue;
        failed.push(id);
      }
    }
    return { returned, failed };
  }

  /** One of the business's transactions; anything else (another business's included) is 404. */
  private async paymentOf(business: ForBusiness, transactionId: string): Promise<TransactionRecord> {
    if (!TRANSACTION_ID.test(transactionId)) throw transactionNotFound();
    const payment = await findTransaction(this.options.storage.db, business.businessId, transactionId);
    if (!payment) throw transactionNotFound();
    return payment;
  }

  /** The payer's account, named by its bank; 422 ACCOUNT_NOT_RESOLVED when it cannot be. */
  async payerOf(payment: TransactionRecord) {
    const bankCode = payment.payer_bank_code;
    const unresolvable = (why: string) =>
      new AppError(ErrorCode.ACCOUNT_NOT_RESOLVED, 422, `The payer's account cannot be refunded: ${why}`);
    if (bankCode === null || bankCode === undefined) {
      throw unresolvable("the bank did not say which bank the payer paid from");
    }
    try {
      return await this.options.banks.resolve({ bankCode, accountNumber: payment.payer_account_number });
    } catch (error) {
      // Not the caller's input: a payer's bank or number the directory refuses cannot be paid.
      if (isAppError(error) && error.code === ErrorCode.VALIDATION_FAILED) throw unresolvable(error.message);
      if (isAppError(error) && error.code === ErrorCode.ACCOUNT_NOT_RESOLVED) {
        throw accountNotResolved(`The payer's bank (${bankCode})`);
      }
      throw error;
    }
  }
}

/** What makes two refunds with one reference the same: the payment, the amount asked and the reason. */
function refundFingerprint(transactionId: string, input: RefundInput): string {
  return fingerprintOf([
    "refund",
    transactionId,
    input.amount ?? "rest",
    input.reason ?? DEFAULT_REFUND_NARRATION,
  ]);
}
