import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type Actor, CLI } from "../core/actor.js";
import { VERIFICATION_STATUSES, type VerificationStatus } from "../core/business-states.js";
import type { OperatorRole } from "../core/people.js";
import { checkTransition, MAX_REASON_LENGTH } from "./verification.js";

const OPERATOR: Actor = { type: "operator", id: "op-1" };
const USER: Actor = { type: "user", id: "u-1" };
const API_KEY: Actor = { type: "api_key", id: "k-1" };

/** Who acts: an actor and, for an operator, their role in the console. */
type Who = { name: string; actor: Actor; role: OperatorRole | null };
const WHO = {
  user: { name: "a business user", actor: USER, role: null },
  reviewer: { name: "a reviewer", actor: OPERATOR, role: "reviewer" },
  admin: { name: "an admin operator", actor: OPERATOR, role: "admin" },
  cli: { name: "the CLI", actor: CLI, role: null },
  key: { name: "an API key", actor: API_KEY, role: null },
} satisfies Record<string, Who>;
const { user, reviewer, admin, cli } = WHO;

/** The whole lifecycle, written out: [from, to, who may, reason needed]. */
const ALLOWED: Array<[VerificationStatus, VerificationStatus, Who[], boolean]> = [
  ["not_submitted", "in_progress", [user, reviewer, admin, cli], false],
  ["rejected", "in_progress", [user, reviewer, admin, cli], false],
  ["in_progress", "completed", [reviewer, admin, cli], false],
  ["in_progress", "rejected", [reviewer, admin, cli], true],
  // Out of `completed` (a suspension): an admin's, never a reviewer's (issue 43, item 2).
  ["completed", "rejected", [admin, cli], true],
];

describe("verification transitions", () => {
  for (const from of VERIFICATION_STATUSES) {
    for (const to of VERIFICATION_STATUSES) {
      const allowed = ALLOWED.find(([f, t]) => f === from && t === to);
      test(`${from} -> ${to}: ${allowed ? "allowed to some" : "refused to all"}`, () => {
        for (const who of Object.values(WHO)) {
          const may = allowed?.[2].includes(who) ?? false;
          const reason = allowed?.[3] ? "documents expired" : undefined;
          const check = () => checkTransition(from, to, who.actor, reason, who.role);
          if (may) {
            assert.deepEqual(check().reason, reason ?? null);
          } else {
            // A reviewer asked for an admin's move is forbidden; any other refusal is the lifecycle's.
            const statusCode = allowed && who === reviewer ? 403 : 409;
            assert.throws(check, { statusCode }, who.name);
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
      () => checkTransition("completed", "rejected", OPERATOR, "   ", "admin"),
      /a reason is required to suspend/,
    );
    assert.equal(checkTransition("completed", "rejected", OPERATOR, "  fraud  ", "admin").reason, "fraud");
    assert.throws(
      () => checkTransition("completed", "rejected", OPERATOR, "x".repeat(MAX_REASON_LENGTH + 1), "admin"),
      { statusCode: 400 },
    );
  });

  test("a reason follows the display-text rule: control and bidi characters are a 400", () => {
    const suspend = (reason: string) => checkTransition("completed", "rejected", OPERATOR, reason, "admin");
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
    assert.throws(() => checkTransition("completed", "rejected", CLI, ["a", "b"] as unknown as string), {
      statusCode: 400,
      message: /the reason must be a string/,
    });
  });
});
