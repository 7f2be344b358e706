import assert from "node:assert/strict";
import { test } from "node:test";
import { isAppError } from "../errors.js";
import { nairaToKobo } from "./money-pages.js";

test("naira typed in a form become integer kobo by their digits, never through a float", () => {
  assert.equal(nairaToKobo("1,500.50"), 150_050);
  assert.equal(nairaToKobo("1500.5"), 150_050);
  assert.equal(nairaToKobo(" 0.01 "), 1);
  assert.equal(nairaToKobo("19.99"), 1_999, "19.99 * 100 is 1998.9999999999998 in floating point");
  assert.equal(nairaToKobo("9999999999999.99"), 999_999_999_999_999);
  for (const refused of ["0", "0.00", "1.005", "-5", "1e3", "abc", "", "12345678901234", "1.", ".5"]) {
    assert.throws(
      () => nairaToKobo(refused),
      (error) => isAppError(error) && error.statusCode === 400,
      refused,
    );
  }
});
