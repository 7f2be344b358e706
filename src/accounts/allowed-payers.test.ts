import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { payerAllowed } from "./allowed-payers.js";

describe("who may pay in (issue 46, item 6)", () => {
  const payer = { name: "OBI ADA CHIOMA", accountNumber: "0123456789", bankCode: "058" };

  test("no list: anyone", () => {
    assert.equal(payerAllowed(null, payer), true);
  });

  test("an account matches on its number and its bank's code, both", () => {
    assert.equal(payerAllowed([{ accountNumber: "0123456789", bankCode: "058" }], payer), true);
    assert.equal(payerAllowed([{ accountNumber: "0123456789", bankCode: "044" }], payer), false);
    assert.equal(payerAllowed([{ accountNumber: "9999999999", bankCode: "058" }], payer), false);
    assert.equal(
      payerAllowed([{ accountNumber: "0123456789", bankCode: "058" }], { ...payer, bankCode: null }),
      false,
      "a notification without the payer's bank cannot show the account is the one named",
    );
  });

  test("a name matches on two shared words, whatever their case, order and accents", () => {
    assert.equal(payerAllowed([{ name: "Ada Obi" }], payer), true);
    assert.equal(payerAllowed([{ name: "Adá Obi" }], payer), true);
    assert.equal(payerAllowed([{ name: "Ada Eze" }], payer), false, "one shared word is not enough");
    assert.equal(
      payerAllowed([{ name: "Lagos Bites Ltd" }], { ...payer, name: "LAGOS BITES LIMITED" }),
      true,
      "the words every company name carries do not count, and do not stop a match",
    );
  });

  test("any entry of the list will do", () => {
    assert.equal(
      payerAllowed([{ name: "Chidi Eze" }, { accountNumber: "0123456789", bankCode: "058" }], payer),
      true,
    );
  });
});
