import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  type BankNotification,
  bankNotificationSchema,
  NOTIFICATION_LIMITS,
} from "../providers/bank-protocol.js";
import { toTransferNotification } from "./bank-notifications.js";
import { parseNotification } from "./validation.js";

// The protocol's limits are the service's: a well-signed notification the protocol allows is
// never refused for its form by the ingestion (a refusal makes the bank reverse the transfer).

const atTheLimits: BankNotification = {
  appId: "app",
  orderNo: `${"A".repeat(99)}:`,
  virtualAccountNo: "0123456789",
  orderAmount: NOTIFICATION_LIMITS.orderAmount,
  currency: "NGN",
  payerAccountName: "Ọ".repeat(NOTIFICATION_LIMITS.payerAccountName),
  payerAccountNo: "9876543210",
  payerBankName: "B".repeat(NOTIFICATION_LIMITS.payerBankName),
  narration: `${"n&=".repeat(66)}xy`,
  paidTime: Date.UTC(2026, 10, 25),
  requestTime: Date.now(),
  nonceStr: "0123456789abcdef",
  version: "V2.0",
  sign: "x",
};

/** What the ingestion makes of a notification the protocol read, as the service receives it. */
const ingested = (sent: Record<string, unknown>) =>
  parseNotification(toTransferNotification(bankNotificationSchema.parse(sent)));

/** U+0958 DEVANAGARI LETTER QA: a composition exclusion, so NFC makes it two code points. */
const QA = "\u0958";

describe("bank notifications: the protocol within the service's own rules", () => {
  test("a notification at every limit of the protocol passes the ingestion's validation", () => {
    assert.ok(bankNotificationSchema.safeParse(atTheLimits).success, "the protocol accepts it");
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
      paidTime: NOTIFICATION_LIMITS.paidTime.min,
    };
    for (const narration of ["", undefined]) {
      const parsed = bankNotificationSchema.parse({ ...smallest, narration });
      const transfer = parseNotification(toTransferNotification(parsed));
      assert.equal(transfer.narration, "");
      assert.equal(transfer.paidAt, "1970-01-01T00:00:00.000Z");
    }
  });

  test("the latest paidTime is the last instant with a four-digit year, on both sides", () => {
    const latest = ingested({ ...atTheLimits, paidTime: NOTIFICATION_LIMITS.paidTime.max });
    assert.equal(latest.paidAt, "9999-12-31T23:59:59.999Z");
    for (const paidTime of [NOTIFICATION_LIMITS.paidTime.max + 1, 8.64e15, -1]) {
      assert.equal(
        bankNotificationSchema.safeParse({ ...atTheLimits, paidTime }).success,
        false,
        `${paidTime}`,
      );
    }
    // The ingestion's own check, for notifications from any source, is the same range.
    const beyond = { ...toTransferNotification(atTheLimits), paidAt: "+010000-01-01T00:00:00.000Z" };
    assert.throws(() => parseNotification(beyond), /paidAt must be/);
    const offsetPast = { ...toTransferNotification(atTheLimits), paidAt: "9999-12-31T23:59:59.999-01:00" };
    assert.throws(() => parseNotification(offsetPast), /paidAt must be from 1970/);
  });

  test("a narration too long after NFC is cut at a character boundary, not refused", () => {
    // The review's case: 200 characters as sent, 400 after NFC; got 400 and the bank reversed it.
    const qa = ingested({ ...atTheLimits, narration: QA.repeat(200) });
    assert.equal(qa.narration, "\u0915\u093c".repeat(100));
    // Letters with their marks stay together; a pair of surrogates is never split.
    const marked = ingested({ ...atTheLimits, narration: `x${"e\u0301".repeat(300)}` });
    assert.equal(marked.narration, `x${"é".repeat(199)}`);
    // Counted in code points: a skin-toned thumb is two (and four UTF-16 code units).
    const emoji = ingested({ ...atTheLimits, narration: `a${"👍🏽".repeat(100)}` });
    assert.equal(emoji.narration, `a${"👍🏽".repeat(99)}`);
    // A single grapheme longer than the limit is cut between code points.
    const zalgo = ingested({ ...atTheLimits, narration: `Z${"\u0301".repeat(500)}` });
    assert.equal(zalgo.narration, `Ź${"\u0301".repeat(199)}`);
  });

  test("control and bidi characters from the bank are cleaned, not refused", () => {
    const cases: Array<[string, string]> = [
      ["line\nbreak", "line break"],
      ["tab\t\tand\r\nCRLF", "tab and CRLF"],
      ["nul\u0000byte", "nul byte"],
      ["\u202eevil\u202c text\u2066", "evil text"],
      ["lone \ud800 surrogate", "lone \ufffd surrogate"],
      ["\n\u0085  padded  \u2028", "padded"],
    ];
    for (const [sent, stored] of cases) {
      assert.equal(ingested({ ...atTheLimits, narration: sent }).narration, stored, JSON.stringify(sent));
    }
  });

  test("one past each other limit is refused by the protocol already", () => {
    for (const [field, value] of [
      ["orderNo", "A".repeat(101)],
      ["orderNo", "has space"],
      ["payerAccountNo", "123"],
      ["payerAccountName", "x".repeat(NOTIFICATION_LIMITS.payerAccountName + 1)],
      ["payerAccountName", QA.repeat(NOTIFICATION_LIMITS.payerAccountName / 2 + 1)],
      ["payerBankName", "x".repeat(NOTIFICATION_LIMITS.payerBankName + 1)],
      ["narration", 42],
      ["currency", "ngn"],
      ["orderAmount", 0],
      ["orderAmount", 1.5],
      ["orderAmount", NOTIFICATION_LIMITS.orderAmount + 1],
      ["paidTime", 1.5],
    ] as const) {
      assert.equal(
        bankNotificationSchema.safeParse({ ...atTheLimits, [field]: value }).success,
        false,
        `${field}`,
      );
    }
  });

  test("whatever the protocol accepts, the ingestion accepts, and cleaning twice changes nothing", () => {
    // Names mostly of characters a name may hold, lengths either side of the limit (NFC
    // lengthens QA and shortens e + U+0301); narrations of anything, the unclean included.
    const nameUnit = fc.constantFrom(QA, "e\u0301", "👍🏽", "Ọ", "a", " ", "\u200d");
    const name = (maxLength: number) => fc.string({ unit: nameUnit, minLength: 1, maxLength });
    const tricky = fc.constantFrom(QA, "e\u0301", "\u202e", "\n", "\u0000", "\ud800", "👍🏽", " ", "\u200d");
    const anything = fc.string({
      unit: fc.oneof(tricky, fc.string({ unit: "binary", maxLength: 1 })),
      maxLength: 300,
    });
    fc.assert(
      fc.property(
        name(260),
        anything,
        name(130),
        fc.integer({ min: -1, max: NOTIFICATION_LIMITS.paidTime.max + 1 }),
        fc.integer({ min: 0, max: NOTIFICATION_LIMITS.orderAmount }),
        (payerAccountName, narration, payerBankName, paidTime, orderAmount) => {
          const sent = { ...atTheLimits, payerAccountName, narration, payerBankName, paidTime, orderAmount };
          const parsed = bankNotificationSchema.safeParse(sent);
          if (!parsed.success) return;
          const transfer = parseNotification(toTransferNotification(parsed.data));
          assert.ok(transfer.narration.length <= NOTIFICATION_LIMITS.narration);
          assert.equal(parseNotification(transfer).narration, transfer.narration, "idempotent");
          assert.equal(transfer.narration, transfer.narration.normalize("NFC"));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
