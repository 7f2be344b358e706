import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { feeFor, formatPercent, NO_FEE, parsePercent } from "./fees.js";

test("no fee is zero on any amount", () => {
  assert.equal(feeFor(1, NO_FEE), 0);
  assert.equal(feeFor(1_000_000_000, NO_FEE), 0);
});

test("1.5 % of NGN 1,000 is NGN 15", () => {
  assert.equal(feeFor(100_000, { basisPoints: 150, capKobo: null }), 1_500);
});

test("rounding is half up to a whole kobo", () => {
  // 1 % of 50 kobo is 0.5 kobo: rounds up to 1. 1 % of 49 kobo is 0.49: rounds down to 0.
  assert.equal(feeFor(50, { basisPoints: 100, capKobo: null }), 1);
  assert.equal(feeFor(49, { basisPoints: 100, capKobo: null }), 0);
  // 0.75 % of 1,234,567 kobo is 9,259.2525: 9,259.
  assert.equal(feeFor(1_234_567, { basisPoints: 75, capKobo: null }), 9_259);
  // 2.5 % of 30 kobo is 0.75: 1.
  assert.equal(feeFor(30, { basisPoints: 250, capKobo: null }), 1);
});

test("the cap applies after rounding", () => {
  assert.equal(feeFor(1_000_000_000, { basisPoints: 150, capKobo: 200_000 }), 200_000);
  assert.equal(feeFor(10_000, { basisPoints: 150, capKobo: 200_000 }), 150);
  assert.equal(feeFor(10_000, { basisPoints: 150, capKobo: 0 }), 0);
});

test("a fee is never negative nor more than the amount, and matches exact rational rounding", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 100_000_000_000 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.option(fc.integer({ min: 0, max: 1_000_000_000 })),
      (amount, basisPoints, capKobo) => {
        const fee = feeFor(amount, { basisPoints, capKobo });
        assert.ok(Number.isSafeInteger(fee) && fee >= 0 && fee <= amount);
        const exact = BigInt(amount) * BigInt(basisPoints);
        // |fee * 10000 - exact| <= 5000 before the cap (half up: exactly 5000 only from below).
        const uncapped = capKobo === null || fee < capKobo;
        if (uncapped) {
          const diff = BigInt(fee) * 10_000n - exact;
          assert.ok(diff > -5_000n && diff <= 5_000n, `${amount} @ ${basisPoints}: ${fee}`);
        }
      },
    ),
  );
});

test("rates outside 0..100 % and amounts that are not whole kobo are refused", () => {
  assert.throws(() => feeFor(100, { basisPoints: 10_001, capKobo: null }), RangeError);
  assert.throws(() => feeFor(100, { basisPoints: -1, capKobo: null }), RangeError);
  assert.throws(() => feeFor(1.5, NO_FEE), RangeError);
  assert.throws(() => feeFor(-1, NO_FEE), RangeError);
});

test("percentages are parsed as text into basis points", () => {
  assert.equal(parsePercent("1.5"), 150);
  assert.equal(parsePercent("1.15"), 115);
  assert.equal(parsePercent("0.01"), 1);
  assert.equal(parsePercent("2"), 200);
  assert.equal(parsePercent("100"), 10_000);
  assert.equal(parsePercent("0"), 0);
  for (const bad of ["100.01", "101", "1.555", "-1", "1e2", "", " ", "abc", "1.", ".5", "0x10"]) {
    assert.equal(parsePercent(bad), undefined, bad);
  }
});

test("basis points format back to the percentage typed", () => {
  for (const [bps, text] of [
    [150, "1.5"],
    [115, "1.15"],
    [200, "2"],
    [1, "0.01"],
    [0, "0"],
    [10_000, "100"],
  ] as const) {
    assert.equal(formatPercent(bps), text);
    assert.equal(parsePercent(text), bps);
  }
});
