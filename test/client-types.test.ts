import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { API_TYPES_FILE, apiTypes } from "../scripts/generate-api-types.js";
import type { AccountDetail, Event, PayoutInput, Transaction } from "../src/core/api-types.js";

// The SDK's types (src/core/api-types.ts) are generated from the zod schemas the routes answer
// with: generated again here, they must be the checked-in file, byte for byte.

describe("the API's types, generated from the routes' schemas", () => {
  test("the checked-in src/core/api-types.ts is what the generator writes (npm run api-types)", () => {
    assert.equal(readFileSync(API_TYPES_FILE, "utf8"), apiTypes());
  });

  test("imports nothing, so the SDK's declarations need no package", () => {
    assert.doesNotMatch(readFileSync(API_TYPES_FILE, "utf8"), /^(import\b|export\b[^;\n]*\bfrom\s+["'])/m);
  });

  test("states nulls, constants and what a client may leave out as the schemas do", () => {
    const detail: Pick<AccountDetail, "amountPolicy" | "paymentStatus"> = {
      amountPolicy: null,
      paymentStatus: "partially_paid",
    };
    // A body's `null` counts as not sent: the client's type leaves the field out instead.
    const payout: PayoutInput = { amount: 100, bankCode: "058", accountNumber: "0123456789" };
    const status: Transaction["status"] = "successful";
    const data: Event["data"] = { anything: [1, "two"] };
    assert.deepEqual(
      [detail.amountPolicy, payout.narration, status, typeof data],
      [null, undefined, "successful", "object"],
    );
  });
});
