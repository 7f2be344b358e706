import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { lagosDayStart } from "../core/lagos-time.js";
import { checkDelay, MAX_CHECK_DELAY_MS } from "./payout-tracker.js";

describe("the payout tracker's schedule and the day's start", () => {
  test("checks double from the interval, up to five minutes", () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((checks) => checkDelay(checks, 5_000)),
      [5_000, 10_000, 20_000, 40_000],
    );
    assert.equal(checkDelay(0, 5_000), 5_000);
    assert.equal(checkDelay(7, 5_000), MAX_CHECK_DELAY_MS);
    assert.equal(checkDelay(1_000, 5_000), MAX_CHECK_DELAY_MS, "no overflow however many checks");
  });

  test("a day in Africa/Lagos (UTC+1, no daylight saving) starts at 23:00 UTC the day before", () => {
    const day = (iso: string) => lagosDayStart(Date.parse(iso));
    assert.equal(day("2026-11-26T22:59:59.999Z"), "2026-11-25T23:00:00.000Z");
    assert.equal(day("2026-11-26T23:00:00.000Z"), "2026-11-26T23:00:00.000Z");
    assert.equal(day("2026-11-26T00:30:00.000Z"), "2026-11-25T23:00:00.000Z");
    assert.equal(day("2026-06-30T23:00:00.000Z"), "2026-06-30T23:00:00.000Z", "the same in June");
  });
});
