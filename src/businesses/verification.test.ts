import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type Actor, CLI } from "../core/actor.js";
import { VERIFICATION_STATUSES, type VerificationStatus } from "../storage/schema.js";
import { checkTransition, MAX_REASON_LENGTH } from "./verification.js";

const OPERATOR: Actor = { type: "operator", operatorId: "op-1" };
const USER: Actor = { type: "user", userId: "u-1" };
const API_KEY: Actor = { type: "api_key", keyId: "k-1" };

/** The whole lifecycle, written out: [from, to, who may, reason needed]. */
const ALLOWED: Array<[VerificationStatus, VerificationStatus, Actor[], boolean]> = [
  ["not_submitted", "in_progress", [USER, OPERATOR, CLI], false],
  ["rejected", "in_progress", [USER, OPERATOR, CLI], false],
  ["in_progress", "completed", [OPERATOR, CLI], false],
  ["in_progress", "rejected", [OPERATOR, CLI], true],
  ["completed", "rejected", [OPERATOR, CLI], true],
];

describe("verification transitions", () => {
  for (const from of VERIFICATION_STATUSES) {
    for (const to of VERIFICATION_STATUSES) {
      const allowed = ALLOWED.find(([f, t]) => f === from && t === to);
      test(`${from} -> ${to}: ${allowed ? "allowed to some" : "refused to all"}`, () => {
        for (const actor of [USER, OPERATOR, CLI, API_KEY]) {
          const may = allowed?.[2].includes(actor) ?? false;
          const reason = allowed?.[3] ? "documents expired" : undefined;
          if (may) {
            assert.deepEqual(checkTransition(from, to, actor, reason).reason, reason ?? null);
          } else {
            assert.throws(() => checkTransition(from, to, actor, reason), { statusCode: 409 }, actor.type);
          }
        }
      });
    }
  }

  test("reject and suspend need a reason; a reason is trimmed and bounded", () => {
    assert.throws(
      () => checkTransition("in_progress", "rejected", CLI, undefined),
      /a reason is required to reject/,
    );
    assert.throws(
      () => checkTransition("completed", "rejected", OPERATOR, "   "),
      /a reason is required to suspend/,
    );
    assert.equal(checkTransition("completed", "rejected", OPERATOR, "  fraud  ").reason, "fraud");
    assert.throws(
      () => checkTransition("completed", "rejected", OPERATOR, "x".repeat(MAX_REASON_LENGTH + 1)),
      { statusCode: 400 },
    );
  });

  test("a reason follows the display-text rule: control and bidi characters are a 400", () => {
    const suspend = (reason: string) => checkTransition("completed", "rejected", OPERATOR, reason);
    for (const [reason, message] of [
      ["fraud\u0000", /the reason must not contain control characters/],
      ["\u001b[2Jfraud", /the reason must not contain control characters/],
      ["fraud \u202edetcepsus", /the reason must not contain bidirectional control characters/],
      ["fraud \ud800", /the reason must not contain unpaired surrogates/],
    ] as const) {
      assert.throws(() => suspend(reason), { statusCode: 400, message }, JSON.stringify(reason));
    }
    // Typed into a textarea: its line breaks fold into spaces; the text is NFC.
    assert.equal(suspend("documents\r\n\r\n  expired").reason, "documents expired");
    assert.equal(suspend("caf\u0065\u0301").reason, "café");
    assert.throws(() => checkTransition("completed", "rejected", OPERATOR, ["a", "b"] as unknown as string), {
      statusCode: 400,
      message: /the reason must be a string/,
    });
  });
});
