import assert from "node:assert/strict";
import { test } from "node:test";
import { isLate, lateBy, lateText } from "./deadlines.js";

const FOUR_MIN = 4 * 60_000;

test("a credit is late only past the limit: exactly at it is on time", () => {
  const paid = "2026-12-01T10:00:00.000Z";
  assert.equal(isLate(paid, "2026-12-01T10:04:00.000Z", FOUR_MIN), false);
  assert.equal(isLate(paid, "2026-12-01T10:04:00.001Z", FOUR_MIN), true);
  assert.equal(isLate(paid, "2026-12-01T10:01:00.000Z", FOUR_MIN), false);
  // A paid time after the recording (the bank's clock ahead) is not late.
  assert.equal(isLate("2026-12-01T10:05:00.000Z", paid, FOUR_MIN), false);
  assert.equal(lateBy("2026-12-01T10:05:00.000Z", paid), 0);
});

test("lateness in milliseconds across days", () => {
  assert.equal(lateBy("2026-12-01T10:00:00.000Z", "2026-12-02T11:00:00.500Z"), 25 * 3_600_000 + 500);
  assert.throws(() => lateBy("yesterday", "2026-12-01T10:00:00.000Z"), RangeError);
});

test("lateness as an operator reads it", () => {
  assert.equal(lateText(40_000), "40 s");
  assert.equal(lateText(4 * 60_000 + 12_000), "4 min 12 s");
  assert.equal(lateText(5 * 60_000), "5 min");
  assert.equal(lateText(3_600_000 + 5 * 60_000), "1 h 5 min");
  assert.equal(lateText(2 * 86_400_000 + 3 * 3_600_000), "2 d 3 h");
  assert.equal(lateText(86_400_000), "1 d");
});
