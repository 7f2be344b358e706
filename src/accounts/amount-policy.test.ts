import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { paymentProgress, policyRefusal } from "./amount-policy.js";

describe("amount policies", () => {
  test("exact takes one transfer of exactly the amount", () => {
    assert.equal(policyRefusal("exact", 500, 0, 0, 500), undefined);
    assert.deepEqual(policyRefusal("exact", 500, 0, 0, 501), { code: "AMOUNT_MISMATCH", accepts: "exactly" });
    assert.deepEqual(policyRefusal("exact", 500, 0, 0, 499), { code: "AMOUNT_MISMATCH", accepts: "exactly" });
    assert.deepEqual(policyRefusal("exact", 500, 500, 1, 500), { code: "ALREADY_PAID" });
  });

  test("atLeast takes one transfer of the amount or more", () => {
    assert.equal(policyRefusal("atLeast", 500, 0, 0, 500), undefined);
    assert.equal(policyRefusal("atLeast", 500, 0, 0, 10_000), undefined);
    assert.deepEqual(policyRefusal("atLeast", 500, 0, 0, 499), {
      code: "AMOUNT_MISMATCH",
      accepts: "at least",
    });
    assert.deepEqual(policyRefusal("atLeast", 500, 900, 1, 500), { code: "ALREADY_PAID" });
  });

  test("accumulate takes any transfer until the total reaches the amount, then none", () => {
    assert.equal(policyRefusal("accumulate", 500, 0, 0, 1), undefined);
    assert.equal(policyRefusal("accumulate", 500, 499, 7, 10_000), undefined, "the reaching one in full");
    assert.deepEqual(policyRefusal("accumulate", 500, 500, 2, 1), { code: "ALREADY_PAID" });
    assert.deepEqual(policyRefusal("accumulate", 500, 800, 2, 1), { code: "ALREADY_PAID" });
  });

  test("any sequence of transfers under accumulate stops at the first total at or past the amount", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.integer({ min: 1, max: 400_000 }), { maxLength: 40 }),
        (expected, amounts) => {
          let paid = 0;
          let transfers = 0;
          for (const amount of amounts) {
            const refusal = policyRefusal("accumulate", expected, paid, transfers, amount);
            assert.equal(refusal === undefined, paid < expected);
            if (refusal) continue;
            paid += amount;
            transfers++;
          }
          // Never more than one transfer's worth past the amount.
          assert.ok(paid < expected + 400_000);
          const progress = paymentProgress(expected, paid);
          assert.equal(progress.amountOutstanding, Math.max(0, expected - paid));
          assert.equal(progress.amountPaid, paid);
        },
      ),
    );
  });

  test("progress names where the payment stands", () => {
    assert.deepEqual(paymentProgress(null, 700), {
      amountPaid: 700,
      amountOutstanding: null,
      paymentStatus: null,
    });
    assert.deepEqual(paymentProgress(500, 0), {
      amountPaid: 0,
      amountOutstanding: 500,
      paymentStatus: "pending",
    });
    assert.deepEqual(paymentProgress(500, 200), {
      amountPaid: 200,
      amountOutstanding: 300,
      paymentStatus: "partially_paid",
    });
    assert.deepEqual(paymentProgress(500, 500), {
      amountPaid: 500,
      amountOutstanding: 0,
      paymentStatus: "paid",
    });
    assert.deepEqual(paymentProgress(500, 501), {
      amountPaid: 501,
      amountOutstanding: 0,
      paymentStatus: "overpaid",
    });
  });
});
