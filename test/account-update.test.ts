import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parseAccountUpdate } from "../src/accounts/validation.js";
import { API_PREFIX } from "../src/app.js";
import { buildOpenApiDocument } from "../src/http/openapi.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// PATCH /account/{accountNumber} (issue 46, item 6): who may pay in and what a credit from anyone
// else becomes, changed after the account was generated, over HTTP on each database. The rules
// apply to the next credit (a sandbox transfer goes through the bank notification's own path).

const PAYER = { payerName: "Ada Obi", payerAccountNumber: "0123456789", payerBankCode: "058" };
const STRANGER = { payerName: "Chidi Eze", payerAccountNumber: "0987654321", payerBankCode: "044" };

for (const dialect of DIALECTS) {
  describe(`PATCH /account/{accountNumber} on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Update Ltd" });
    });
    after(() => h.close());

    const patch = (number: string, body: unknown, as = business, headers: Record<string, string> = {}) =>
      h.request({ method: "PATCH", url: `${API}/account/${number}`, body, as, headers });
    const get = async (url: string) => {
      const response = await h.request({ url: `${API}${url}`, as: business });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data;
    };
    const open = async (path = "/account/generate", body: Record<string, unknown> = {}) => {
      const response = await h.request({ url: `${API}${path}`, body: customer(body), as: business });
      assert.ok([200, 201].includes(response.statusCode), response.body); // 200: re-issued
      return response.json().data.accountNumber as string;
    };
    const pay = (accountNumber: string, amount: number, payer = PAYER) =>
      h.request({ url: `${API}/sandbox/transfers`, body: { accountNumber, amount, ...payer }, as: business });
    const updatedEvents = async (accountNumber: string) =>
      (
        (await get("/events?type=account.updated&limit=100")) as Array<{
          accountNumber: string;
          data: unknown;
        }>
      )
        .filter((event) => event.accountNumber === accountNumber)
        .map((event) => event.data);

    test("a list set by PATCH declines the next credit from anyone else, and takes the named payers", async () => {
      const number = await open();
      assert.equal((await pay(number, 1_000, STRANGER)).statusCode, 201, "anyone may pay at first");
      const response = await patch(number, {
        allowedPayers: [
          { accountNumber: PAYER.payerAccountNumber, bankCode: PAYER.payerBankCode },
          { name: "Ngozi Okafor" },
        ],
      });
      assert.equal(response.statusCode, 200, response.body);
      const answered = response.json().data;
      assert.deepEqual(answered, await get(`/account/${number}`), "the account as GET answers it");
      assert.deepEqual(answered.allowedPayers, [
        { accountNumber: PAYER.payerAccountNumber, bankCode: PAYER.payerBankCode },
        { name: "Ngozi Okafor" },
      ]);
      assert.equal(answered.onMismatch, "decline", "what is not sent stays");

      const refused = await pay(number, 2_000, STRANGER);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.equal(refused.json().error.code, "PAYER_NOT_ALLOWED");
      assert.equal((await pay(number, 3_000)).statusCode, 201, "a named account");
      const byName = { ...STRANGER, payerName: "OKAFOR NGOZI ADAEZE" };
      assert.equal((await pay(number, 4_000, byName)).statusCode, 201, "a name that shares two words");
      assert.equal((await get(`/account/${number}`)).totalReceived, 8_000);
      assert.deepEqual(await updatedEvents(number), [answered], "account.updated, with the account's detail");
    });

    test("hold set by PATCH holds the next credit from anyone else; null lets anyone pay again", async () => {
      const number = await open("/account/generate/temporary", { duration: 600 });
      const held = await patch(number, { allowedPayers: [{ name: "Ada Obi" }], onMismatch: "hold" });
      assert.equal(held.statusCode, 200, held.body);
      assert.equal(held.json().data.onMismatch, "hold");
      const before = await get("/balance");
      const credit = await pay(number, 5_000, STRANGER);
      assert.equal(credit.statusCode, 201, credit.body);
      assert.equal(credit.json().data.status, "held");
      assert.equal((await get("/balance")).held - before.held, 5_000);

      // The policy alone: the list stays.
      const declining = await patch(number, { onMismatch: "decline" });
      assert.deepEqual(declining.json().data.allowedPayers, [{ name: "Ada Obi" }]);
      assert.equal((await pay(number, 6_000, STRANGER)).json().error.code, "PAYER_NOT_ALLOWED");

      const cleared = await patch(number, { allowedPayers: null });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(cleared.json().data.allowedPayers, null);
      assert.equal(cleared.json().data.onMismatch, "decline");
      const anyone = await pay(number, 7_000, STRANGER);
      assert.equal(anyone.statusCode, 201, anyone.body);
      assert.equal(anyone.json().data.status, "successful");
      assert.deepEqual(
        (await updatedEvents(number)).map((data) => (data as { onMismatch: string }).onMismatch),
        ["decline", "decline", "hold"],
        "one event a change, newest first",
      );
    });

    test("asking for what the account has answers it as it is, with no event; a retried request is answered once", async () => {
      const number = await open();
      const same = await patch(number, { allowedPayers: null, onMismatch: "decline" });
      assert.equal(same.statusCode, 200, same.body);
      assert.deepEqual(same.json().data, await get(`/account/${number}`));
      assert.deepEqual(await updatedEvents(number), [], "nothing changed");

      const key = randomUUID();
      const body = { allowedPayers: [{ name: "Bola Ade" }] };
      const first = await patch(number, body, business, { "idempotency-key": key });
      assert.equal(first.statusCode, 200, first.body);
      const again = await patch(number, body, business, { "idempotency-key": key });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.deepEqual(again.json(), first.json());
      const other = await patch(number, { onMismatch: "hold" }, business, { "idempotency-key": key });
      assert.equal(other.statusCode, 422, other.body);
      assert.equal(other.json().error.code, "IDEMPOTENCY_KEY_REUSED");
      assert.equal((await updatedEvents(number)).length, 1);
    });

    test("bad bodies are 400 naming what to fix, and change nothing", async () => {
      const number = await open();
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^nothing to change: send allowedPayers, onMismatch or both$/],
        [
          { allowedPayer: [{ name: "Ada Obi" }] },
          /^allowedPayer cannot be changed: send allowedPayers, onMismatch or both$/,
        ],
        [{ onMismatch: "hold", name: "Ada" }, /^name cannot be changed/],
        [{ "bad\u202efield": 1 }, /^this field cannot be changed/],
        [{ allowedPayers: [] }, /^allowedPayers must be a list of 1 to 20 payers/],
        [{ allowedPayers: "anyone" }, /^allowedPayers must be a list of 1 to 20 payers/],
        [{ allowedPayers: Array.from({ length: 21 }, (_, i) => ({ name: `Payer ${i}` })) }, /1 to 20 payers/],
        [
          { allowedPayers: [{ accountNumber: "123", bankCode: "058" }] },
          /^allowedPayers: an accountNumber must be a string of exactly 10 digits$/,
        ],
        [
          { allowedPayers: [{ accountNumber: "0123456789", bankCode: "58" }] },
          /^allowedPayers: a bankCode must be/,
        ],
        [
          { allowedPayers: [{ accountNumber: "0123456789" }] },
          /^allowedPayers: each payer is \{accountNumber, bankCode\} or \{name\}/,
        ],
        [{ allowedPayers: [{ name: "  " }] }, /^allowedPayers: a name must be/],
        [{ onMismatch: "keep" }, /^onMismatch must be one of decline, hold$/],
        [{ onMismatch: null }, /^onMismatch must be one of decline, hold$/],
      ];
      for (const [body, message] of cases) {
        const response = await patch(number, body);
        assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
        assert.equal(response.json().status, "fail");
        assert.equal(response.json().error.code, "VALIDATION_FAILED");
        assert.match(response.json().message, message, JSON.stringify(body));
      }
      for (const raw of ["[]", "5", '"hold"', "{"]) {
        const response = await patch(number, raw);
        assert.equal(response.statusCode, 400, `${raw}: ${response.body}`);
        assert.ok(["INVALID_JSON", "VALIDATION_FAILED"].includes(response.json().error.code), raw);
      }
      const detail = await get(`/account/${number}`);
      assert.deepEqual([detail.allowedPayers, detail.onMismatch], [null, "decline"]);
      assert.deepEqual(await updatedEvents(number), []);
    });

    test("credits racing the change: each taken under the rules before or after it, never anything else", async () => {
      const number = await open();
      const credits = Array.from({ length: 12 }, (_, i) => pay(number, 100 + i, STRANGER));
      const change = patch(number, { allowedPayers: [{ name: "Ada Obi" }] });
      const answers = await Promise.all(credits);
      assert.equal((await change).statusCode, 200);
      let taken = 0;
      for (const answer of answers) {
        if (answer.statusCode === 201) taken += answer.json().data.amount;
        else {
          assert.equal(answer.statusCode, 422, answer.body);
          assert.equal(answer.json().error.code, "PAYER_NOT_ALLOWED");
        }
      }
      assert.equal((await get(`/account/${number}`)).totalReceived, taken, "exactly the ones taken");
      assert.equal((await pay(number, 1, STRANGER)).statusCode, 422, "after it, the new rules");
    });

    test("another business's account, an unknown and a retired number are 404 ACCOUNT_NOT_FOUND", async () => {
      const body = { allowedPayers: [{ name: "Ada Obi" }] };
      const email = `retire.${dialect}@example.com`;
      const first = await open("/account/generate", { email });
      const other = await h.createBusiness({ name: "Other Ltd" });
      const theirs = await patch(first, body, other);
      assert.equal(theirs.statusCode, 404, theirs.body);
      assert.equal(theirs.json().error.code, "ACCOUNT_NOT_FOUND");
      assert.equal((await get(`/account/${first}`)).allowedPayers, null, "untouched");

      const second = await open("/account/generate", { email });
      assert.notEqual(second, first, "re-issued: a new number");
      const retired = await patch(first, body);
      assert.equal(retired.statusCode, 404, retired.body);
      assert.equal(retired.json().error.code, "ACCOUNT_NOT_FOUND");
      const unknown = await patch("0000000000", body);
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().error.code, "ACCOUNT_NOT_FOUND");
      assert.equal((await patch("12345", body)).statusCode, 404, "not 10 digits: no route");
      assert.equal((await patch(second, body)).statusCode, 200, "its number now");
    });
  });
}

describe("the document's AccountUpdateRequest judges a body as the server does", () => {
  const schemas = (buildOpenApiDocument(API_PREFIX).components as { schemas: Record<string, object> })
    .schemas;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const validate = ajv.compile(schemas.AccountUpdateRequest as object);
  const accepts = (body: Record<string, unknown>) => {
    try {
      parseAccountUpdate(body);
      return true;
    } catch {
      return false;
    }
  };

  test("accepted and refused alike", () => {
    const bodies: Array<Record<string, unknown>> = [
      {},
      { allowedPayers: null },
      { onMismatch: "hold" },
      { onMismatch: null },
      { onMismatch: "keep" },
      { allowedPayers: [{ name: "Ada Obi" }], onMismatch: "decline" },
      { allowedPayers: [{ accountNumber: "0123456789", bankCode: "058" }] },
      { allowedPayers: [{ accountNumber: "0123456789", bankCode: "058", name: "Ada" }] },
      { allowedPayers: [] },
      { allowedPayers: [{ name: "!!" }] },
      { allowedPayers: null, extra: true },
    ];
    for (const body of bodies) {
      assert.equal(validate(body), accepts(body), JSON.stringify(body));
    }
  });
});
