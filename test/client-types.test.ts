import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { API_TYPES_FILE, apiTypes, MONEY_OUT_TYPES_FILE } from "../scripts/generate-api-types.js";
import type { AccountDetail, Event, PayoutInput, Transaction } from "../src/core/api-types.js";

// The SDK's types (src/core/api-types.ts, re-exporting money-out-types.ts) are generated from the zod schemas the routes answer
// with: generated again here, they must be the checked-in file, byte for byte.

describe("the API's types, generated from the routes' schemas", () => {
  test("the checked-in src/core/api-types.ts and money-out-types.ts are what the generator writes (npm run api-types)", () => {
    const generated = apiTypes();
    assert.deepEqual([...generated.keys()], [API_TYPES_FILE, MONEY_OUT_TYPES_FILE]);
    for (const [file, text] of generated) assert.equal(readFileSync(file, "utf8"), text, file);
  });

  test("import nothing but each other, so the SDK's declarations need no package", () => {
    const imports = /^(import\b|export\b[^;\n]*\bfrom\s+["']([^"']+)["'])/gm;
    const from = (file: string) => [...readFileSync(file, "utf8").matchAll(imports)].map((m) => m[2] ?? m[0]);
    assert.deepEqual(from(MONEY_OUT_TYPES_FILE), []);
    assert.deepEqual(from(API_TYPES_FILE), ["./money-out-types.js"]);
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
