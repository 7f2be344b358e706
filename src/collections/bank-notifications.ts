import type { KeyObject } from "node:crypto";
import type { Clock } from "../clock.js";
import { type BankNotification, bankNotificationSchema } from "../providers/bank-protocol.js";
import {
  authenticateBankMessage,
  checkedNotification,
  type SignedMessage,
} from "../providers/bank-signing.js";
import { creditNotification } from "../providers/bank-statement.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import type { CollectionService, ReceivedTransfer } from "./collection-service.js";

// A bank's payment notifications over HTTP (issue 14, docs/bank-integration.md): checked here,
// then recorded through the one ingestion path every transfer takes. The signature is checked
// first, so that a sender without the bank's key learns nothing else about what it sent; the
// two steps are apart so that the HTTP side can tell a sender without the key (limited, logged
// in aggregate) from the bank itself.

/** A notification's parameters whose `sign` verified with the bank's key; nothing else checked yet. */
export type SignedNotification = SignedMessage;

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
    return authenticateBankMessage(body, this.options.bankPublicKey);
  }

  /** Checks a signed notification's freshness, shape and app id, and records its transfer. Throws the refusal. */
  async record(params: SignedNotification): Promise<ReceivedTransfer> {
    const notification = checkedNotification(params, bankNotificationSchema, this.options.appId, this.now());
    return this.options.collections.receive(toTransferNotification(notification));
  }
}

/** A verified bank notification as the one shape every inbound transfer takes. */
export function toTransferNotification(notification: BankNotification): TransferNotification {
  return creditNotification(notification);
}
