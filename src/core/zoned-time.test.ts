import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  canonicalTimeZone,
  isTimeZone,
  utcToZonedMinute,
  zonedMinuteToUtc,
  zonedTime,
} from "./zoned-time.js";

test("an instant in Lagos is WAT, an hour ahead of UTC, named", () => {
  assert.equal(zonedTime("2026-11-27T06:31:05.123Z", "Africa/Lagos"), "2026-11-27 07:31 WAT");
  assert.equal(
    zonedTime("2026-11-27T23:30:00.000Z", "Africa/Lagos", { seconds: true }),
    "2026-11-28 00:30:00 WAT",
  );
  assert.equal(zonedTime("2026-11-27T06:31:05.123Z", "UTC"), "2026-11-27 06:31 UTC");
  assert.equal(zonedTime("not a time", "Africa/Lagos"), "not a time");
});

test("a zone with summer time names each season's offset", () => {
  assert.match(zonedTime("2026-07-01T12:00:00.000Z", "Europe/London"), /^2026-07-01 13:00 (BST|GMT\+1)$/);
  assert.match(zonedTime("2026-01-01T12:00:00.000Z", "Europe/London"), /^2026-01-01 12:00 (GMT|UTC)$/);
});

test("a minute typed in a zone is the UTC instant it names; its end takes the whole minute", () => {
  assert.equal(zonedMinuteToUtc("2026-11-27T07:31", "Africa/Lagos"), "2026-11-27T06:31:00.000Z");
  assert.equal(zonedMinuteToUtc("2026-11-28T00:10", "Africa/Lagos", ":59.999"), "2026-11-27T23:10:59.999Z");
  assert.equal(zonedMinuteToUtc("2026-07-01T13:00", "Europe/London"), "2026-07-01T12:00:00.000Z");
  assert.equal(zonedMinuteToUtc("2026-01-01T12:00", "America/New_York"), "2026-01-01T17:00:00.000Z");
  // London's clocks go back at 02:00 BST on 25 October 2026: 01:30 happens twice; the first is read.
  assert.equal(zonedMinuteToUtc("2026-10-25T01:30", "Europe/London"), "2026-10-25T00:30:00.000Z");
  // They go forward at 01:00 GMT on 29 March 2026: 01:30 never happens; the offset before is used.
  assert.equal(zonedMinuteToUtc("2026-03-29T01:30", "Europe/London"), "2026-03-29T01:30:00.000Z");
  assert.equal(zonedMinuteToUtc("2026-11-27 07:31", "Africa/Lagos"), undefined);
  assert.equal(zonedMinuteToUtc("2026-13-45T07:31", "Africa/Lagos"), undefined);
});

test("a zone's minute and back is the same minute, in any zone (in an hour a clock change repeats, its first)", () => {
  const zones = [
    "Africa/Lagos",
    "UTC",
    "Europe/London",
    "America/New_York",
    "Asia/Kolkata",
    "Australia/Adelaide",
  ];
  fc.assert(
    fc.property(
      fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2090, 0, 1) }),
      fc.constantFrom(...zones),
      (instant, zone) => {
        const minute = instant - (instant % 60_000);
        const local = utcToZonedMinute(new Date(minute).toISOString(), zone);
        const back = zonedMinuteToUtc(local, zone) as string;
        // In the hour a clock change repeats, the first occurrence is the one read: never later.
        assert.ok(Date.parse(back) === minute || minute - Date.parse(back) === 3_600_000, `${zone} ${local}`);
        assert.equal(utcToZonedMinute(back, zone), local);
      },
    ),
    { numRuns: 500 },
  );
});

test("a time zone is one the runtime knows, spelled as the list spells it", () => {
  assert.equal(canonicalTimeZone("africa/lagos"), "Africa/Lagos");
  assert.equal(canonicalTimeZone("utc"), "UTC");
  assert.ok(["Asia/Kolkata", "Asia/Calcutta"].includes(canonicalTimeZone("Asia/Kolkata") as string));
  assert.equal(canonicalTimeZone("Lagos"), undefined);
  assert.ok(isTimeZone("Africa/Lagos"));
  assert.ok(isTimeZone("Europe/London"));
  assert.ok(!isTimeZone("Lagos"));
  assert.ok(!isTimeZone(""));
  assert.ok(!isTimeZone("Africa/Lagos'; drop table"));
});
