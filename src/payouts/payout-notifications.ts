import type { KeyObject } from "node:crypto";
import type { Clock } from "../clock.js";
import type { Payout } from "../core/api-types.js";
import { payoutNotFound } from "../core/money-out-errors.js";
import { ORDER_STATUS, payoutNotificationSchema } from "../providers/bank-protocol.js";
import {
  authenticateBankMessage,
  checkedNotification,
  type SignedMessage,
} from "../providers/bank-signing.js";
import type { PayoutService } from "./payout-service.js";

// The bank's status notifications of transfers out (docs/bank-integration.md), by the rules of its
// payment notifications: the signature first, then freshness, shape and app id; then the status
// is applied once (a repeat, or a status the payout cannot move to, changes nothing).

export interface PayoutNotificationsOptions {
  payouts: PayoutService;
  appId: string;
  bankPublicKey: KeyObject;
  now?: Clock;
}

export class PayoutNotifications {
  private readonly now: Clock;

  constructor(private readonly options: PayoutNotificationsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The body as the bank signed it; throws when it cannot be the bank's. */
  authenticate(body: unknown): SignedMessage {
    return authenticateBankMessage(body, this.options.bankPublicKey);
  }

  /** Checks a signed notification and applies its status; 404 PAYOUT_NOT_FOUND for an unknown reference. */
  async record(params: SignedMessage): Promise<Payout> {
    const notification = checkedNotification(
      params,
      payoutNotificationSchema,
      this.options.appId,
      this.now(),
    );
    const payout = await this.options.payouts.applyBankState({
      reference: notification.orderId,
      status: ORDER_STATUS[notification.orderStatus],
      reason: notification.failReason ?? null,
    });
    if (!payout) throw payoutNotFound();
    return payout;
  }
}
