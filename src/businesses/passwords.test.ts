import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { hashPassword, MIN_PASSWORD_LENGTH, passwordMatches, passwordProblem } from "./passwords.js";

describe("the password policy", () => {
  test("refuses short, common and patterned passwords, with the reason", () => {
    assert.match(passwordProblem("short") ?? "", /at least 12 characters/);
    assert.match(passwordProblem("x".repeat(257)) ?? "", /at most 256 characters/);
    for (const common of ["password1234", "qwertyuiop123", "123456789012", "iloveyou1234", "aaaaaaaaaaaa"]) {
      assert.match(passwordProblem(common) ?? "", /too easy to guess/, common);
    }
  });

  test("refuses a password made of the user's own email or business name", () => {
    assert.ok(passwordProblem("kolafoods2024", ["owner@kolafoods.example", "Kola Foods"]));
  });

  test("accepts a long passphrase", () => {
    assert.equal(passwordProblem("correct horse battery staple 42"), undefined);
    assert.equal(passwordProblem("tRf8#qL2!vWz9@"), undefined);
    assert.equal(MIN_PASSWORD_LENGTH, 12);
  });
});

describe("password hashing", () => {
  test("argon2id in PHC form, salted, verifying only the right password", async () => {
    const first = await hashPassword("correct horse battery staple 42");
    const second = await hashPassword("correct horse battery staple 42");
    assert.match(first, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(first, second, "a fresh salt each time");
    assert.equal(await passwordMatches(first, "correct horse battery staple 42"), true);
    assert.equal(await passwordMatches(first, "correct horse battery staple 43"), false);
    assert.equal(await passwordMatches(first, "x".repeat(300)), false);
  });
});
