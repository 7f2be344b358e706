import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  aboveCaps,
  CBN_PAYOUT_FEE_CAPS,
  DEFAULT_PAYOUT_FEE_TIERS,
  formatPayoutFeeTiers,
  largestPayoutWithin,
  type PayoutFeeTier,
  PayoutFeeTiersError,
  parsePayoutFeeTiers,
  payoutFee,
} from "./payout-fees.js";

const refused = (text: string, message: RegExp) =>
  assert.throws(
    () => parsePayoutFeeTiers(text),
    (error: unknown) => {
      assert.ok(error instanceof PayoutFeeTiersError);
      assert.match(error.message, message);
      return true;
    },
  );

describe("payout fee tiers", () => {
  test("the default is Paystack's: NGN 10 up to NGN 5,000, NGN 25 up to NGN 50,000, NGN 50 above", () => {
    assert.deepEqual(parsePayoutFeeTiers("500000:1000,5000000:2500,*:5000"), DEFAULT_PAYOUT_FEE_TIERS);
    assert.equal(payoutFee(DEFAULT_PAYOUT_FEE_TIERS, 1), 1_000);
    assert.equal(payoutFee(DEFAULT_PAYOUT_FEE_TIERS, 500_000), 1_000, "a limit is inclusive");
    assert.equal(payoutFee(DEFAULT_PAYOUT_FEE_TIERS, 500_001), 2_500);
    assert.equal(payoutFee(DEFAULT_PAYOUT_FEE_TIERS, 5_000_000), 2_500);
    assert.equal(payoutFee(DEFAULT_PAYOUT_FEE_TIERS, 5_000_001), 5_000);
    assert.equal(payoutFee(DEFAULT_PAYOUT_FEE_TIERS, Number.MAX_SAFE_INTEGER), 5_000);
  });

  test("a schedule is read with spaces, free payouts and one tier for everything", () => {
    assert.deepEqual(parsePayoutFeeTiers(" 100 : 0 , * : 50 "), [
      { upTo: 100, fee: 0 },
      { upTo: null, fee: 50 },
    ]);
    assert.deepEqual(parsePayoutFeeTiers("*:0"), [{ upTo: null, fee: 0 }]);
  });

  test("what is refused says what to fix", () => {
    refused("", /tier 1 must be upTo:fee/);
    refused("500000:1000", /the last tier must be \*:fee/);
    refused("*:10,500:5", /only the last tier may be \*/);
    refused("500:10,500:20,*:30", /each larger than the one before/);
    refused("900:10,500:20,*:30", /each larger than the one before/);
    refused("0:10,*:30", /rise from 1 kobo/);
    refused("1.5:10,*:30", /tier 1's limit must be a whole number of kobo, got "1.5"/);
    refused("100:-1,*:30", /tier 1's fee must be a whole number of kobo/);
    refused("100:10,*:1e3", /tier 2's fee must be a whole number of kobo/);
    refused("100:010,*:5", /tier 1's fee must be a whole number of kobo, got "010"/);
    refused("9999999999999999:1,*:5", /too large/);
    refused("99999999999999999:1,*:5", /must be a whole number of kobo/);
    refused(Array.from({ length: 11 }, (_, i) => `${i + 1}:1`).join(","), /at most 10 tiers/);
  });

  /** Any valid schedule: up to `tiers` - 1 rising limits up to `maxLimit`, then *, each fee up to `maxFee`. */
  const schedules = (maxLimit: number, maxFee: number, tiers: number) =>
    fc
      .uniqueArray(fc.integer({ min: 1, max: maxLimit }), { maxLength: tiers - 1 })
      .chain((limits) =>
        fc.tuple(
          fc.constant([...limits].sort((a, b) => a - b)),
          fc.array(fc.integer({ min: 0, max: maxFee }), {
            minLength: limits.length + 1,
            maxLength: limits.length + 1,
          }),
        ),
      )
      .map(([limits, fees]): PayoutFeeTier[] => [
        ...limits.map((upTo, i) => ({ upTo, fee: fees[i] ?? 0 })),
        { upTo: null, fee: fees[limits.length] ?? 0 },
      ]);
  const schedule = schedules(10_000_000_000, 100_000, 10);

  test("every schedule reads back as it was written, and charges the first tier that holds the amount", () => {
    fc.assert(
      fc.property(schedule, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (tiers, amount) => {
        assert.deepEqual(parsePayoutFeeTiers(formatPayoutFeeTiers(tiers)), tiers);
        const tier = tiers.find((t) => t.upTo === null || amount <= t.upTo);
        assert.equal(payoutFee(tiers, amount), tier?.fee);
        // The tier is the one whose range holds the amount: above the previous limit.
        const index = tiers.indexOf(tier as PayoutFeeTier);
        const previous = tiers[index - 1]?.upTo;
        if (previous != null) assert.ok(amount > previous);
      }),
    );
  });

  test("a settlement's amount is the largest whose amount and fee fit in the budget", () => {
    // NGN 100,000 available under the default: NGN 99,950 and NGN 50 of fee.
    assert.equal(largestPayoutWithin(DEFAULT_PAYOUT_FEE_TIERS, 10_000_000), 9_995_000);
    // Just above a tier's limit, the cheaper tier's top is the most that fits.
    assert.equal(largestPayoutWithin(DEFAULT_PAYOUT_FEE_TIERS, 5_001_000), 4_998_500);
    assert.equal(largestPayoutWithin(DEFAULT_PAYOUT_FEE_TIERS, 1_000), 0, "the fee alone uses the budget");
    assert.equal(largestPayoutWithin(DEFAULT_PAYOUT_FEE_TIERS, 0), 0);
    // Checked against every amount, on small schedules and budgets.
    const small = schedules(300, 60, 4);
    fc.assert(
      fc.property(small, fc.integer({ min: 0, max: 500 }), (tiers, budget) => {
        let most = 0;
        for (let amount = 1; amount <= budget; amount++) {
          if (amount + payoutFee(tiers, amount) <= budget) most = amount;
        }
        assert.equal(largestPayoutWithin(tiers, budget), most);
      }),
    );
  });

  test("tiers above the CBN's caps are named by the first payout they overcharge", () => {
    assert.equal(aboveCaps(DEFAULT_PAYOUT_FEE_TIERS, CBN_PAYOUT_FEE_CAPS), undefined);
    assert.equal(aboveCaps([{ upTo: null, fee: 1_000 }], CBN_PAYOUT_FEE_CAPS), undefined);
    assert.match(
      aboveCaps([{ upTo: null, fee: 1_001 }], CBN_PAYOUT_FEE_CAPS) ?? "",
      /1001 kobo on payouts above 0 kobo is above the cap of 1000 kobo on a payout of 1 kobo/,
    );
    // NGN 25 from NGN 5,000.01 is within the cap; from NGN 5,000 it is not.
    const tiers = [
      { upTo: 499_999, fee: 1_000 },
      { upTo: null, fee: 2_500 },
    ];
    assert.match(aboveCaps(tiers, CBN_PAYOUT_FEE_CAPS) ?? "", /on a payout of 500000 kobo/);
    assert.equal(
      aboveCaps(
        [
          { upTo: 500_000, fee: 0 },
          { upTo: null, fee: 2_500 },
        ],
        CBN_PAYOUT_FEE_CAPS,
      ),
      undefined,
    );
  });
});
