import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAccountUpdate } from "../accounts/validation.js";
import { isAppError } from "../errors.js";
import { payersBody } from "./payer-lines.js";

const refusalOf = (form: Record<string, string>) => {
  try {
    payersBody(form);
  } catch (error) {
    if (isAppError(error) && error.statusCode === 400) return error.fields ?? {};
    throw error;
  }
  assert.fail(`${JSON.stringify(form)} was taken`);
};

test("the form's lines become the API's allowedPayers, which PATCH's own rule takes", () => {
  const body = payersBody({
    allowedPayers:
      "0123456789 058\r\n0123456780,044\n  Ngozi Okafor \n\n7Up Bottling Company\n1234567890/100004",
    onMismatch: "hold",
  });
  assert.deepEqual(body, {
    allowedPayers: [
      { accountNumber: "0123456789", bankCode: "058" },
      { accountNumber: "0123456780", bankCode: "044" },
      { name: "Ngozi Okafor" },
      { name: "7Up Bottling Company" },
      { accountNumber: "1234567890", bankCode: "100004" },
    ],
    onMismatch: "hold",
  });
  assert.deepEqual(parseAccountUpdate(body), body);
  assert.deepEqual(payersBody({ allowedPayers: " \n \r\n", onMismatch: "decline" }), {
    allowedPayers: null,
    onMismatch: "decline",
  });
  assert.deepEqual(payersBody({ onMismatch: "decline" }).allowedPayers, null, "no field: anyone");
});

test("every problem at once, each by its line, in the form's words", () => {
  const fields = refusalOf({ allowedPayers: "Ada Obi\n012345678 058\n%%%\n0123456789 58" });
  assert.deepEqual(Object.keys(fields), ["allowedPayers", "onMismatch"]);
  assert.match(fields.allowedPayers ?? "", /^Who may pay in: line 2: an account is its 10-digit number/);
  assert.match(
    fields.allowedPayers ?? "",
    /; line 3: a name is at most 200 characters, with a letter or a digit; line 4: an account/,
  );
  assert.match(fields.onMismatch ?? "", /decline it or hold it/);
  const many = refusalOf({ allowedPayers: Array(21).fill("Ada Obi").join("\n"), onMismatch: "hold" });
  assert.deepEqual(many, { allowedPayers: "Who may pay in: at most 20 payers, one a line (21 given)" });
  assert.match(
    refusalOf({ allowedPayers: "x".repeat(201), onMismatch: "hold" }).allowedPayers ?? "",
    /line 1: a name/,
  );
});
