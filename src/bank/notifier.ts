import type { KeyObject } from "node:crypto";
import {
  type BankNotification,
  envelope,
  NOTIFICATION_ACK,
  orderStatusOf,
  type PayoutNotification,
} from "../providers/bank-protocol.js";
import { signParams } from "../providers/bank-signing.js";
import type { BankTransferAnswer } from "../providers/payout-rail.js";
import type { VirtualBank } from "../providers/virtual-bank.js";
import type { BankDatabase, BankTransfer } from "./bank-database.js";
import type { FaultPlan } from "./faults.js";
import type { DueTransferOut } from "./transfers-out.js";

// The Virtual Bank's notifications: each payment into an account is sent, signed, to the
// service's notification URL until the service acknowledges it, refuses it, or the attempts run
// out; each change of a transfer out (settled, sent back) to its payout notification URL until
// the service acknowledges or refuses it (never abandoned: a payout must end).

/** A transfer out in the protocol's words. */
export const transferData = (answer: BankTransferAnswer) => ({
  orderId: answer.reference,
  orderStatus: orderStatusOf(answer.bankStatus),
  nipCode: answer.code,
  sessionId: answer.sessionId,
  failReason: answer.reason,
});

/** The longest pause between two attempts. */
export const MAX_RETRY_DELAY_MS = 10 * 60_000;

/** How long to wait after the `attempt`-th failed attempt (1-based): doubling from `baseMs`, capped. */
export function retryDelay(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), MAX_RETRY_DELAY_MS);
}

/**
 * What one answer of the service means to the bank: its acknowledgement ends the transfer's
 * notifications; a refusal of the transfer itself (400: not a notification it can read; 422:
 * refused by its rules) ends them too, and the bank reverses the transfer. Anything else is
 * tried again: no answer, a 5xx, a 401 while keys or clocks are being fixed, a 404 or 415 (the
 * URL or the service is misconfigured), a 429, and a 409 (the order number was recorded with
 * other details: neither credited again nor reversed; the service keeps the conflict for its
 * operators, and the attempts run out into "abandoned", for the bank's).
 */
export function classifyAnswer(status: number, body: string): "acknowledged" | "refused" | "retry" {
  if (status === 200) {
    try {
      const answer = JSON.parse(body) as { respCode?: unknown };
      if (answer.respCode === NOTIFICATION_ACK.respCode) return "acknowledged";
    } catch {
      // not an acknowledgement
    }
    return "retry";
  }
  return status === 400 || status === 422 ? "refused" : "retry";
}

export interface NotifierOptions {
  db: BankDatabase;
  /** Where a transfer out stands (its outcome is fixed by its destination, its time by the clock). */
  bank: VirtualBank;
  notifyUrl: string;
  payoutNotifyUrl: string;
  appId: string;
  /** The bank's private key: signs every notification. */
  privateKey: KeyObject;
  faults: FaultPlan;
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
  pollIntervalMs: number;
  log: { info: (details: object, message: string) => void; warn: (details: object, message: string) => void };
  now?: () => number;
}

export class Notifier {
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly now: () => number;

  constructor(private readonly options: NotifierOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
  }

  /** Sends what is due now (a new transfer does not wait for the next poll). */
  kick(): void {
    if (this.running || !this.timer) return;
    this.running = true;
    try {
      for (const transfer of this.options.db.dueTransfers(this.now(), 32)) {
        if (this.inFlight.has(transfer.orderNo)) continue;
        const attempt = this.attempt(transfer)
          .catch((error: unknown) =>
            this.options.log.warn({ err: error, orderNo: transfer.orderNo }, "notification attempt failed"),
          )
          .finally(() => this.inFlight.delete(transfer.orderNo));
        this.inFlight.set(transfer.orderNo, attempt);
      }
      const now = this.now();
      for (const payout of this.options.db.payoutsToNotify(new Date(now).toISOString(), now, 32)) {
        const key = `out:${payout.reference}`;
        if (this.inFlight.has(key)) continue;
        const attempt = this.notifyPayout(payout)
          .catch((error: unknown) =>
            this.options.log.warn({ err: error, orderId: payout.reference }, "payout notification failed"),
          )
          .finally(() => this.inFlight.delete(key));
        this.inFlight.set(key, attempt);
      }
    } catch (error) {
      // The file busy or closing: the next poll tries again.
      this.options.log.warn({ err: error }, "cannot read the transfers due");
    } finally {
      this.running = false;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled(this.inFlight.values());
  }

  private async attempt(transfer: BankTransfer): Promise<void> {
    const { faults, log } = this.options;
    let outcome: "acknowledged" | "refused" | "retry";
    let error: string | null = null;
    if (faults.take("dropNotifications")) {
      outcome = "retry";
      error = "lost on the way (fault injected)";
    } else {
      const body = JSON.stringify(this.notification(transfer));
      const copies = 1 + faults.get().duplicateNotifications;
      const answers = await Promise.all(
        Array.from({ length: copies }, () => this.send(body, this.options.notifyUrl)),
      );
      outcome = answers.some((a) => a.outcome === "acknowledged")
        ? "acknowledged"
        : answers.some((a) => a.outcome === "refused")
          ? "refused"
          : "retry";
      error = outcome === "acknowledged" ? null : (answers.find((a) => a.error)?.error ?? null);
    }
    const attempts = transfer.attempts + 1;
    const status =
      outcome === "retry" ? (attempts >= this.options.maxAttempts ? "abandoned" : "pending") : outcome;
    this.options.db.recordAttempt(transfer.orderNo, {
      status,
      nextAttemptAt: this.now() + retryDelay(attempts, this.options.retryBaseMs),
      error,
    });
    if (status === "refused") {
      log.warn({ orderNo: transfer.orderNo, error }, "transfer refused by the service: reversed");
    } else if (status === "abandoned") {
      log.warn(
        { orderNo: transfer.orderNo, attempts, error },
        "notifications abandoned: for the bank's operators",
      );
    } else if (status === "acknowledged") {
      log.info({ orderNo: transfer.orderNo, attempts }, "notification acknowledged");
    }
  }

  /** Tells the service where a transfer out now stands; retried (doubling) until it answers. */
  private async notifyPayout(record: DueTransferOut): Promise<void> {
    const { faults, db, bank } = this.options;
    const state = bank.answerOf(record, "notification");
    let outcome: ReturnType<typeof classifyAnswer> = "retry";
    let error = "lost on the way (fault injected)";
    if (!faults.take("dropNotifications")) {
      const unsigned = { appId: this.options.appId, ...transferData(state), ...envelope(this.now()) };
      const notification: PayoutNotification = {
        ...unsigned,
        sign: signParams(unsigned, this.options.privateKey),
      };
      const answer = await this.send(JSON.stringify(notification), this.options.payoutNotifyUrl);
      outcome = answer.outcome;
      error = answer.error ?? "";
    }
    if (outcome === "retry") {
      const attempts = record.attempts + 1;
      db.payoutNotificationFailed(
        record.reference,
        this.now() + retryDelay(attempts, this.options.retryBaseMs),
        error,
      );
      return;
    }
    if (outcome === "refused")
      this.options.log.warn(
        { orderId: record.reference, error },
        "payout notification refused by the service",
      );
    db.markNotified(record.reference, record.notified, state.bankStatus);
  }

  private notification(transfer: BankTransfer): BankNotification {
    const unsigned = {
      appId: this.options.appId,
      orderNo: transfer.orderNo,
      virtualAccountNo: transfer.accountNumber,
      orderAmount: transfer.amount,
      currency: transfer.currency,
      payerAccountName: transfer.payerName,
      payerAccountNo: transfer.payerAccountNo,
      payerBankName: transfer.payerBankName,
      ...(transfer.payerBankCode === null ? {} : { payerBankCode: transfer.payerBankCode }),
      narration: transfer.narration,
      paidTime: transfer.paidTime,
      ...envelope(this.now()),
    };
    return { ...unsigned, sign: signParams(unsigned, this.options.privateKey) };
  }

  private async send(
    body: string,
    url: string,
  ): Promise<{ outcome: ReturnType<typeof classifyAnswer>; error?: string }> {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: "error",
      });
      const text = await response.text();
      const outcome = classifyAnswer(response.status, text);
      return outcome === "acknowledged"
        ? { outcome }
        : { outcome, error: `HTTP ${response.status}: ${text.slice(0, 300)}` };
    } catch (error) {
      return { outcome: "retry", error: (error as Error).message };
    }
  }
}
