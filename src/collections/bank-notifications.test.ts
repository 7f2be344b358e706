import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  type BankNotification,
  NOTIFICATION_LIMITS,
  notificationSchema,
} from "../providers/bank-protocol.js";
import { toTransferNotification } from "./bank-notifications.js";
import { parseNotification } from "./validation.js";

// The protocol's limits are the service's: a well-signed notification the protocol allows is
// never refused for its form by the ingestion (a refusal makes the bank reverse the transfer).

const atTheLimits: BankNotification = {
  appId: "app",
  orderNo: "A".repeat(99) + ":",
  virtualAccountNo: "0123456789",
  orderAmount: Number.MAX_SAFE_INTEGER,
  currency: "NGN",
  payerAccountName: "Ọ".repeat(NOTIFICATION_LIMITS.payerAccountName),
  payerAccountNo: "9876543210",
  payerBankName: "B".repeat(NOTIFICATION_LIMITS.payerBankName),
  narration: "n&=".repeat(66) + "xy",
  paidTime: Date.UTC(2026, 10, 25),
  requestTime: Date.now(),
  nonceStr: "0123456789abcdef",
  version: "V2.0",
  sign: "x",
};

describe("bank notifications: the protocol within the service's own rules", () => {
  test("a notification at every limit of the protocol passes the ingestion's validation", () => {
    assert.ok(notificationSchema.safeParse(atTheLimits).success, "the protocol accepts it");
    const transfer = parseNotification(toTransferNotification(atTheLimits));
    assert.equal(transfer.sessionId, atTheLimits.orderNo);
    assert.equal(transfer.narration.length, NOTIFICATION_LIMITS.narration);
    assert.equal(transfer.paidAt, "2026-11-25T00:00:00.000Z");
  });

  test("an empty or absent narration, and the smallest values, pass too", () => {
    const smallest = {
      ...atTheLimits,
      orderNo: "1",
      orderAmount: 1,
      payerAccountName: "A",
      payerBankName: "B",
    };
    for (const narration of ["", undefined]) {
      const parsed = notificationSchema.parse({ ...smallest, narration });
      assert.equal(parseNotification(toTransferNotification(parsed)).narration, "");
    }
  });

  test("one past each limit is refused by the protocol already", () => {
    for (const [field, value] of [
      ["orderNo", "A".repeat(101)],
      ["orderNo", "has space"],
      ["payerAccountNo", "123"],
      ["payerAccountName", "x".repeat(NOTIFICATION_LIMITS.payerAccountName + 1)],
      ["payerBankName", "x".repeat(NOTIFICATION_LIMITS.payerBankName + 1)],
      ["narration", "x".repeat(NOTIFICATION_LIMITS.narration + 1)],
      ["narration", "line\nbreak"],
      ["currency", "ngn"],
      ["orderAmount", 0],
      ["orderAmount", 1.5],
    ] as const) {
      assert.equal(
        notificationSchema.safeParse({ ...atTheLimits, [field]: value }).success,
        false,
        `${field}`,
      );
    }
  });
});
