import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  type ChargeSchedule,
  ChargeScheduleError,
  chargeLines,
  checkChargeSchedule,
  creditCharges,
  DEFAULT_CHARGES,
  NO_CHARGES,
  payoutCharges,
  vatOn,
} from "./charges.js";
import { heldFor } from "./holds.js";
import { DEFAULT_PAYOUT_FEE_TIERS, largestPayoutWithin, payoutFee } from "./payout-fees.js";

// The charges' arithmetic (issue 46, item 4): VAT on a fee rounded half up per posting, the stamp
// duty from its threshold on the side the schedule charges, a credit's charges never more than it,
// and a settlement's amount the largest whose amount, fee and charges fit.

describe("charges", () => {
  test("VAT is 7.5 % of the fee, rounded half up to a whole kobo (known vectors)", () => {
    assert.equal(vatOn(22_500, 750), 1_688, "1,687.5 rounds up");
    assert.equal(vatOn(2_500, 750), 188, "187.5 rounds up");
    assert.equal(vatOn(1_000, 750), 75);
    assert.equal(vatOn(6, 750), 0, "0.45 rounds down");
    assert.equal(vatOn(7, 750), 1, "0.525 rounds up");
    assert.equal(vatOn(0, 750), 0);
    assert.equal(vatOn(2 ** 52, 750), Number((2n ** 52n * 750n + 5_000n) / 10_000n), "exact far past floats");
  });

  test("the stamp duty is NGN 50 from NGN 10,000, to the sender by default, the receiver when asked", () => {
    assert.deepEqual(payoutCharges(999_999, 2_500, DEFAULT_CHARGES), { vat: 188, stampDuty: 0 });
    assert.deepEqual(payoutCharges(1_000_000, 2_500, DEFAULT_CHARGES), { vat: 188, stampDuty: 5_000 });
    assert.deepEqual(creditCharges(1_000_000, 0, DEFAULT_CHARGES), {
      fee: 0,
      charges: { vat: 0, stampDuty: 0 },
    });
    const receiver = { ...DEFAULT_CHARGES, stampDutyOnCredits: true };
    assert.deepEqual(creditCharges(1_000_000, 0, receiver).charges, { vat: 0, stampDuty: 5_000 });
    assert.deepEqual(payoutCharges(5_000_000, 5_000, NO_CHARGES), { vat: 0, stampDuty: 0 });
  });

  test("the lines come in the fixed order, only those not 0: [] when none", () => {
    assert.deepEqual(chargeLines({ vat: 0, stampDuty: 0 }), []);
    assert.deepEqual(chargeLines({ vat: 0, stampDuty: 5_000 }), [{ kind: "stamp_duty", amount: 5_000 }]);
    assert.deepEqual(chargeLines({ vat: 1, stampDuty: 2 }), [
      { kind: "vat", amount: 1 },
      { kind: "stamp_duty", amount: 2 },
    ]);
  });

  test("a schedule the postings cannot apply is refused, saying what to fix", () => {
    const refused = (change: Partial<ChargeSchedule>) =>
      assert.throws(() => checkChargeSchedule({ ...DEFAULT_CHARGES, ...change }), ChargeScheduleError);
    refused({ vatBasisPoints: 10_001 });
    refused({ vatBasisPoints: 7.5 });
    refused({ stampDutyKobo: -1 });
    refused({ stampDutyThresholdKobo: 0 });
    refused({ stampDutyKobo: 2_000_000 });
    checkChargeSchedule(DEFAULT_CHARGES);
    checkChargeSchedule(NO_CHARGES);
  });

  const schedule = fc.record({
    vatBasisPoints: fc.integer({ min: 0, max: 10_000 }),
    stampDutyKobo: fc.integer({ min: 0, max: 200 }),
    stampDutyThresholdKobo: fc.integer({ min: 200, max: 2_000 }),
    stampDutyOnPayouts: fc.boolean(),
    stampDutyOnCredits: fc.boolean(),
  });

  test("a credit's fee and charges never exceed it; the fee is lowered only when they would", () => {
    fc.assert(
      fc.property(
        schedule,
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (s, amount, bps) => {
          const fee = Number((BigInt(amount) * BigInt(bps) + 5_000n) / 10_000n);
          const { fee: kept, charges } = creditCharges(amount, fee, s);
          assert.ok(kept + charges.vat + charges.stampDuty <= amount);
          assert.equal(charges.vat, vatOn(kept, s.vatBasisPoints), "VAT is on the fee charged");
          if (fee + vatOn(fee, s.vatBasisPoints) + charges.stampDuty <= amount) assert.equal(kept, fee);
          else
            assert.ok(
              kept + 1 + vatOn(kept + 1, s.vatBasisPoints) + charges.stampDuty > amount,
              "the largest that fits",
            );
        },
      ),
    );
  });

  test("a settlement's amount is the largest whose amount, fee and charges fit in the budget", () => {
    // NGN 100,000 under the defaults: fee NGN 50, VAT NGN 3.75, stamp duty NGN 50.
    assert.equal(largestPayoutWithin(DEFAULT_PAYOUT_FEE_TIERS, 10_000_000, DEFAULT_CHARGES), 9_989_625);
    fc.assert(
      fc.property(schedule, fc.integer({ min: 0, max: 3_000 }), (s, budget) => {
        const tiers = [
          { upTo: 500, fee: 10 },
          { upTo: 1_500, fee: 25 },
          { upTo: null, fee: 50 },
        ];
        let most = 0;
        for (let amount = 1; amount <= budget; amount++) {
          const fee = payoutFee(tiers, amount);
          if (heldFor(amount, fee, payoutCharges(amount, fee, s)) <= budget) most = amount;
        }
        assert.equal(largestPayoutWithin(tiers, budget, s), most);
      }),
    );
  });
});
