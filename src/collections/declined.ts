import { isoNow } from "../clock.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import { AppError, type TransferRefusalCode, transferRefused } from "../errors.js";
import { recordEvent } from "../events/outbox.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import type { Storage } from "../storage/database.js";
import { noteDeclined } from "../storage/declined-credit-repository.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";

// A credit refused at the notification for a reason the business should hear of (issue 46: a
// tier's limit) is answered to the bank as every refusal is (422: it reverses the transfer), and
// told to the business as a `payment.declined` event. The refusal rolls the transfer's write back,
// so the event is written after it, in a small write of its own, once per session id.

/** A refusal that the business is told of: the refusal, with the account it was for. */
export class DeclinedCredit extends AppError {
  constructor(
    code: TransferRefusalCode,
    message: string,
    readonly businessId: string,
  ) {
    const refusal = transferRefused(code, message);
    super(refusal.code, refusal.statusCode, refusal.message);
    this.reason = message;
  }
  /** The rule's words, without "Transfer refused: ". */
  readonly reason: string;
}

/** `payment.declined`'s data: any declined credit, whatever declined it. */
export interface PaymentDeclined {
  accountNumber: string;
  amount: number;
  currency: string;
  sessionId: string;
  payer: TransferNotification["payer"];
  reason: { code: string; message: string };
  declinedAt: string;
}

/**
 * Writes `payment.declined` for a declined credit, the first time its session id is declined
 * (a notification sent again is refused again, without a second event).
 */
export async function recordDeclined(
  storage: Storage,
  deliveries: DeliveryDialect<Executor>,
  transfer: TransferNotification,
  declined: DeclinedCredit,
  now: () => number,
): Promise<void> {
  const declinedAt = isoNow(now);
  const data: PaymentDeclined = {
    accountNumber: transfer.accountNumber,
    amount: transfer.amount,
    currency: transfer.currency,
    sessionId: transfer.sessionId,
    payer: { ...transfer.payer, bankCode: transfer.payer.bankCode ?? null },
    reason: { code: declined.code, message: declined.reason },
    declinedAt,
  };
  await writeTransaction(storage, async (trx) => {
    const first = await noteDeclined(trx, {
      sessionId: transfer.sessionId,
      businessId: declined.businessId,
      accountNumber: transfer.accountNumber,
      amount: transfer.amount,
      reason: declined.code,
      declinedAt,
    });
    if (!first) return;
    await recordEvent(
      trx,
      deliveries,
      {
        businessId: declined.businessId,
        type: "payment.declined",
        accountNumber: transfer.accountNumber,
        data,
      },
      declinedAt,
    );
  });
}
