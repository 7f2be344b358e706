import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { withCode } from "../payouts/payout-model.js";
import { NIP_CODES, NIP_SESSION_ID, nipClassOf, nipSessionId, statusFromBank } from "./nip.js";

describe("NIP session ids", () => {
  test("30 digits: the institution's code, the Lagos time to the second, 12 unique digits", () => {
    const at = Date.UTC(2026, 11, 7, 23, 15, 9, 482); // 00:15:09 on the 8th in Lagos
    const id = nipSessionId("999999", at);
    assert.match(id, NIP_SESSION_ID);
    assert.equal(id.slice(0, 6), "999999");
    assert.equal(id.slice(6, 18), "261208001509");
    assert.notEqual(nipSessionId("999999", at), id, "two sessions in one second differ");
  });

  test("every instant makes a valid one; a code that is not 6 digits is refused", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }), (at) => {
        assert.match(nipSessionId("100004", at), NIP_SESSION_ID);
      }),
    );
    assert.throws(() => nipSessionId("12345", 0));
  });
});

describe("NIP response codes", () => {
  test("00 succeeds, refusals are final, timeouts and the unlisted are unknown", () => {
    assert.equal(nipClassOf("00"), "success");
    for (const code of ["25", "51", "57", "06"]) assert.equal(nipClassOf(code), "refused", code);
    for (const code of ["01", "09", "91", "96", "97", "42"]) assert.equal(nipClassOf(code), "unknown", code);
    assert.equal(nipClassOf(null), "unknown");
  });

  test("an operator's unknown codes are unknown whatever the table says", () => {
    assert.equal(NIP_CODES["51"]?.class, "refused");
    assert.equal(nipClassOf("51", { unknownCodes: new Set(["51"]) }), "unknown");
  });

  test("a status is final only when the bank's status and its code agree", () => {
    assert.equal(statusFromBank("successful", "00"), "successful");
    assert.equal(statusFromBank("failed", "51"), "failed");
    // A "failed" timeout may have paid the beneficiary: pending, and asked about again.
    assert.equal(statusFromBank("failed", "97"), "pending");
    assert.equal(statusFromBank("failed", "91"), "pending");
    assert.equal(statusFromBank("successful", "09"), "pending");
    assert.equal(statusFromBank("pending", "00"), "pending");
    assert.equal(statusFromBank("reversed", "00"), "reversed");
  });

  test("a payout keeps the codes it saw, a repeat once, the first and the latest when many", () => {
    assert.equal(withCode(null, null), null);
    assert.equal(withCode(null, "97"), "97");
    assert.equal(withCode("97", "01"), "97,01");
    assert.equal(withCode("97,01", "01"), "97,01");
    let codes: string | null = null;
    for (let i = 0; i < 40; i++) codes = withCode(codes, i % 2 === 0 ? "01" : "96");
    assert.equal(codes?.split(",").length, 12);
    assert.ok(codes?.startsWith("01,96"));
  });
});
