import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import fc from "fast-check";
import { isAppError } from "../errors.js";
import { NOTIFICATION_LIMITS } from "../providers/bank-protocol.js";
import { sandboxNotification } from "../providers/virtual-bank.js";
import { parseNotification, sandboxTransferInput } from "./validation.js";

// A sandbox transfer is recorded without reading its notification again: the route's contract
// checked its fields, and the Virtual Bank builds the rest. That is only right if the bank
// protocol's reading of such a notification is the notification itself, whatever was sent.

const text = (max: number) =>
  fc.oneof(
    fc.string({ maxLength: max + 5 }),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.constantFrom("  Ada  Obi ", "e\u0301", "Zoë", "\u202eevil", "a\u0000b", "\u200b", "x".repeat(max + 1)),
  );

const body = fc.record(
  {
    accountNumber: fc.oneof(
      { arbitrary: fc.stringMatching(/^\d{10}$/), weight: 9 },
      { arbitrary: fc.string({ maxLength: 11 }), weight: 1 },
    ),
    amount: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: NOTIFICATION_LIMITS.orderAmount }), weight: 9 },
      { arbitrary: fc.constantFrom(0, -1, 1.5, NOTIFICATION_LIMITS.orderAmount + 1), weight: 1 },
    ),
    payerName: text(NOTIFICATION_LIMITS.payerAccountName),
    payerAccountNumber: fc.oneof(
      { arbitrary: fc.stringMatching(/^\d{10}$/), weight: 9 },
      { arbitrary: fc.constant("12"), weight: 1 },
    ),
    payerBankName: text(NOTIFICATION_LIMITS.payerBankName),
    narration: text(NOTIFICATION_LIMITS.narration),
  },
  { requiredKeys: ["accountNumber", "amount"] },
);

describe("a sandbox transfer's notification", () => {
  test("is read by the bank protocol as exactly itself, for every input the contract accepts", () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        body,
        fc.date({ min: new Date(2020, 0, 1), max: new Date(2090, 0, 1), noInvalidDate: true }),
        (sent, when) => {
          let input: ReturnType<typeof sandboxTransferInput.parse>;
          try {
            input = sandboxTransferInput.parse(sent);
          } catch (error) {
            if (isAppError(error)) return; // refused with a 400 before anything is built
            throw error;
          }
          accepted++;
          const notification = sandboxNotification({
            ...input,
            sessionId: `sandbox-${randomUUID()}`,
            paidAt: when.toISOString(),
          });
          assert.deepEqual(parseNotification(notification), notification);
        },
      ),
      { numRuns: 2_000 },
    );
    assert.ok(accepted > 200, `enough accepted inputs were tried (${accepted})`);
  });
});
