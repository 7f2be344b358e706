import type { KeyObject } from "node:crypto";
import type { Clock } from "../clock.js";
import { bankMessageStale, bankSignatureInvalid, validationFailed } from "../errors.js";
import { type BankNotification, bankNotificationSchema } from "../providers/bank-protocol.js";
import { isFreshMessage, type ProtocolValue, verifyParams } from "../providers/bank-signing.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import type { CollectionService, ReceivedTransfer } from "./collection-service.js";

// A bank's payment notifications over HTTP (issue 14, docs/bank-integration.md): checked here,
// then recorded through the one ingestion path every transfer takes. The signature is checked
// first, so that a sender without the bank's key learns nothing else about what it sent; the
// two steps are apart so that the HTTP side can tell a sender without the key (limited, logged
// in aggregate) from the bank itself.

declare const verified: unique symbol;
/** A notification's parameters whose `sign` verified with the bank's key; nothing else checked yet. */
export type SignedNotification = Readonly<Record<string, ProtocolValue>> & { readonly [verified]: true };

export interface BankNotificationsOptions {
  collections: CollectionService;
  /** The service's app id at the bank: a notification for another app is refused. */
  appId: string;
  /** The bank's public key (BANK_PUBLIC_KEY_FILE). */
  bankPublicKey: KeyObject;
  now?: Clock;
}

export class BankNotifications {
  private readonly now: Clock;

  constructor(private readonly options: BankNotificationsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Verifies a notification (signature, freshness, shape, app id) and records its transfer:
   * once per orderNo, however often and in whatever order it comes. Throws the refusal.
   */
  async receive(body: unknown): Promise<ReceivedTransfer> {
    return this.record(this.authenticate(body));
  }

  /**
   * The body as the bank signed it. Throws when it cannot be the bank's: not a JSON object
   * (VALIDATION_FAILED), or a `sign` that does not verify with its key (BANK_SIGNATURE_INVALID).
   */
  authenticate(body: unknown): SignedNotification {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw validationFailed("The notification must be a JSON object");
    }
    const params = body as Record<string, ProtocolValue>;
    if (!verifyParams(params, params.sign, this.options.bankPublicKey)) throw bankSignatureInvalid();
    return params as SignedNotification;
  }

  /** Checks a signed notification's freshness, shape and app id, and records its transfer. Throws the refusal. */
  async record(params: SignedNotification): Promise<ReceivedTransfer> {
    if (!isFreshMessage(params.requestTime, this.now())) throw bankMessageStale();
    const parsed = bankNotificationSchema.safeParse(params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw validationFailed(`Invalid notification: ${issue?.path.join(".") || "body"}: ${issue?.message}`);
    }
    const notification = parsed.data;
    if (notification.appId !== this.options.appId) {
      throw bankSignatureInvalid("The notification is for another app id");
    }
    return this.options.collections.receive(toTransferNotification(notification));
  }
}

/** A verified bank notification as the one shape every inbound transfer takes. */
export function toTransferNotification(notification: BankNotification): TransferNotification {
  return {
    sessionId: notification.orderNo,
    accountNumber: notification.virtualAccountNo,
    amount: notification.orderAmount,
    currency: notification.currency,
    payer: {
      name: notification.payerAccountName,
      accountNumber: notification.payerAccountNo,
      bankName: notification.payerBankName,
    },
    narration: notification.narration ?? "",
    paidAt: new Date(notification.paidTime).toISOString(),
  };
}
