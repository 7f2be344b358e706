import assert from "node:assert/strict";
import { test } from "node:test";
import { namesLookAlike } from "./name-match.js";

test("an account in the business's own name looks alike, in any case, with or without its suffix", () => {
  for (const [account, business] of [
    ["LAGOS BITES LIMITED", "Lagos Bites Ltd"],
    ["Lagos Bites", "Lagos Bites Ltd"],
    ["Kola Foods Ltd", "Kola Foods Limited"],
    ["KOLAFOODS", "Kolafoods Nigeria Ltd"],
    ["Ọlá Bakery & Sons", "Ola Bakery and Sons Limited"],
  ]) {
    assert.equal(namesLookAlike(account as string, business as string), true, `${account} ~ ${business}`);
  }
});

test("an account in someone else's name does not", () => {
  for (const [account, business] of [
    ["Chukwuma Eze", "Lagos Bites Ltd"],
    ["Lagos Motors Ltd", "Lagos Bites Ltd"],
    ["Bites", "Lagos Bites Ltd"],
    ["Limited", "Limited"],
    ["", "Lagos Bites Ltd"],
  ]) {
    assert.equal(namesLookAlike(account as string, business as string), false, `${account} !~ ${business}`);
  }
});
