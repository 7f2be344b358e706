import type { KeyObject } from "node:crypto";
import type { Clock } from "../clock.js";
import type { Payout } from "../core/api-types.js";
import { payoutNotFound } from "../core/money-out-errors.js";
import { payoutNotificationSchema, transferAnswerOf } from "../providers/bank-protocol.js";
import {
  authenticateBankMessage,
  checkedNotification,
  type SignedMessage,
} from "../providers/bank-signing.js";
import { DEFAULT_NIP_READING, type NipReading } from "../providers/nip.js";
import { readTransferAnswer } from "../providers/payout-rail.js";
import type { PayoutService } from "./payout-service.js";

// The bank's status notifications of transfers out (docs/bank-integration.md), by the rules of its
// payment notifications: the signature first, then freshness, shape and app id; then the status
// is applied once (a repeat, or a status the payout cannot move to, changes nothing).

export interface PayoutNotificationsOptions {
  payouts: PayoutService;
  appId: string;
  bankPublicKey: KeyObject;
  /** How the bank's NIP codes are read (NIP_UNKNOWN_CODES). */
  nipReading?: NipReading;
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
    const payout = await this.options.payouts.applyBankState(
      readTransferAnswer(transferAnswerOf(notification), this.options.nipReading ?? DEFAULT_NIP_READING),
    );
    if (!payout) throw payoutNotFound();
    return payout;
  }
}
