import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AppError } from "../errors.js";
import type { IdentityRegistry } from "../providers/account-provider.js";
import { checkIdentity } from "./identity-check.js";

// The name rule of an identity (issue 46): the bank's record against the holder's name.

/** A registry whose record of every number is `name` (undefined: none). */
const registry = (name: string | undefined): IdentityRegistry => ({ identityName: async () => name });
const bvn = { type: "bvn" as const, number: "22345678901" };

const outcome = (record: string | undefined, holder: string) =>
  checkIdentity(registry(record), bvn, holder).then(
    () => "match",
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );

describe("checkIdentity", () => {
  test("two shared words match, whatever their order, case and accents", async () => {
    assert.equal(await outcome("OBI ADA CHIOMA", "Ada Obi"), "match");
    assert.equal(await outcome("Adaèze Ngozi Okafor", "adaeze okafor"), "match");
    assert.equal(await outcome("Adaeze Ngozi Okafor", "Adaeze Bello"), "IDENTITY_MISMATCH");
  });

  test("a record of one word needs that word", async () => {
    assert.equal(await outcome("Tunde", "Tunde Bakare"), "match");
    assert.equal(await outcome("Tunde", "Bola Bakare"), "IDENTITY_MISMATCH");
  });

  test("the same name matches even without words to compare; different symbols do not", async () => {
    assert.equal(await outcome("😀", "😀"), "match");
    assert.equal(await outcome("😀", "🙂"), "IDENTITY_MISMATCH");
  });

  test("no record is the bank's refusal, and the message never holds the number", async () => {
    const error = await checkIdentity(registry(undefined), bvn, "Ada Obi").catch((caught: unknown) => caught);
    assert.ok(error instanceof AppError);
    assert.deepEqual([error.code, error.statusCode], ["PROVIDER_REJECTED", 400]);
    const mismatch = await checkIdentity(registry("Bola Bakare"), bvn, "Ada Obi").catch((e: unknown) => e);
    assert.ok(mismatch instanceof AppError);
    assert.equal(mismatch.statusCode, 422);
    assert.ok(!mismatch.message.includes(bvn.number) && !mismatch.message.includes("Bola"));
  });

  test("a registry that fails is the bank unavailable (502)", async () => {
    const failing: IdentityRegistry = {
      identityName: async () => {
        throw new Error("socket hang up");
      },
    };
    const error = await checkIdentity(failing, bvn, "Ada Obi").catch((caught: unknown) => caught);
    assert.ok(error instanceof AppError);
    assert.deepEqual([error.code, error.statusCode], ["PROVIDER_UNAVAILABLE", 502]);
  });
});
