import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { acceptLegs, blockLegs, heldArrivalLegs, releaseLegs } from "./held.js";
import { transferLegs } from "./posting.js";

const sum = (legs: ReadonlyArray<{ kind: string; amount: number }>, kind: string) =>
  legs.filter((leg) => leg.kind === kind).reduce((total, leg) => total + leg.amount, 0);

describe("held credits' legs (issue 46)", () => {
  test("a held credit comes in whole to held, no fee yet", () => {
    assert.deepEqual(heldArrivalLegs(10_000), [
      { kind: "settlement", amount: -10_000 },
      { kind: "held", amount: 10_000 },
    ]);
  });

  test("its arrival and its acceptance post what a credit taken at once posts", () => {
    const charges = { vat: 11, stampDuty: 5_000 };
    const both = [...heldArrivalLegs(1_000_000), ...acceptLegs(1_000_000, 150, charges)];
    const direct = transferLegs(1_000_000, 150, charges);
    for (const kind of ["settlement", "available", "revenue", "vat_payable", "stamp_duty_payable"])
      assert.equal(sum(both, kind), sum(direct, kind), kind);
    assert.equal(sum(both, "held"), 0, "nothing stays held");
  });

  test("a block and its release move the amount between available and held", () => {
    assert.deepEqual(blockLegs(700), [
      { kind: "available", amount: -700 },
      { kind: "held", amount: 700 },
    ]);
    assert.deepEqual(releaseLegs(700), [
      { kind: "held", amount: -700 },
      { kind: "available", amount: 700 },
    ]);
  });

  test("amounts that are not positive kobo are refused", () => {
    for (const amount of [0, -1, 1.5]) {
      assert.throws(() => heldArrivalLegs(amount), RangeError);
      assert.throws(() => blockLegs(amount), RangeError);
    }
  });
});
