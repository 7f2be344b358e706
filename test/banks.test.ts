import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { SANDBOX_BANKS, SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { nubanFromSerial } from "../src/providers/nuban.js";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";
import { Contract, fetchDocument } from "./helpers/openapi-contract.js";

// GET /banks and GET /banks/resolve over signed HTTP, on both databases, against the embedded
// Virtual Bank: its bank list, and name enquiry of the sandbox's destination accounts.

const payee = (outcome: string) => {
  const found = SANDBOX_PAYEES.find((p) => p.outcome === outcome);
  assert.ok(found, outcome);
  return found;
};

test("docs/api.md lists every sandbox destination account as the sandbox has it", () => {
  const doc = readFileSync(new URL("../docs/api.md", import.meta.url), "utf8");
  for (const p of SANDBOX_PAYEES) {
    const row = `| ${p.bankCode} | ${p.bankName} | ${p.accountNumber} | ${p.accountName ?? "(none)"} |`;
    assert.ok(doc.includes(row), `docs/api.md has the row ${row}`);
  }
});

for (const dialect of DIALECTS) {
  describe(`banks and name enquiry on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Paying Out Ltd" });
    });
    after(() => h.close());

    const get = (url: string) => h.request({ url: `${API}${url}`, as: business });
    const resolve = (query: Record<string, string | string[]>) => {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(query))
        for (const one of [value].flat()) search.append(name, one);
      return get(`/banks/resolve?${search}`);
    };

    test("GET /banks lists the banks by CBN code", async () => {
      const response = await get("/banks");
      assert.equal(response.statusCode, 200, response.body);
      const { status, data } = response.json() as {
        status: string;
        data: Array<{ code: string; name: string }>;
      };
      assert.equal(status, "success");
      assert.deepEqual(data, SANDBOX_BANKS);
      assert.equal(new Set(data.map((bank) => bank.code)).size, data.length, "one entry per code");
      assert.ok(data.some((bank) => bank.code === "058" && bank.name === "Guaranty Trust Bank"));
    });

    test("a sandbox destination resolves to its name", async () => {
      for (const known of SANDBOX_PAYEES.filter((p) => p.outcome !== "unresolvable")) {
        const response = await resolve({ bankCode: known.bankCode, accountNumber: known.accountNumber });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), {
          status: "success",
          data: {
            bankCode: known.bankCode,
            bankName: known.bankName,
            accountNumber: known.accountNumber,
            accountName: known.accountName,
          },
        });
      }
    });

    test("an account the bank does not know is 422 ACCOUNT_NOT_RESOLVED", async () => {
      const unresolvable = payee("unresolvable");
      const refused = await resolve({
        bankCode: unresolvable.bankCode,
        accountNumber: unresolvable.accountNumber,
      });
      assertFailCode(refused, 422, "ACCOUNT_NOT_RESOLVED");
      assert.equal(
        refused.json().message,
        `${unresolvable.bankName} has no account with this number: check the bank and the account number`,
      );
      // A well-formed number at a listed bank that is nobody's in the sandbox.
      assertFailCode(
        await resolve({ bankCode: "058", accountNumber: nubanFromSerial("058", 7) }),
        422,
        "ACCOUNT_NOT_RESOLVED",
      );
    });

    test("a malformed question is a 400 naming the field, before any bank is asked", async () => {
      const good = payee("successful");
      assertValidation(await resolve({ accountNumber: good.accountNumber }), "bankCode is required");
      assertValidation(await resolve({}), "bankCode is required");
      assertValidation(await resolve({ bankCode: good.bankCode }), "accountNumber is required");
      assertValidation(
        await resolve({ bankCode: "GTB", accountNumber: good.accountNumber }),
        "bankCode must be a bank's code from GET /banks (3 to 6 digits)",
      );
      assertValidation(
        await resolve({ bankCode: [good.bankCode, "044"], accountNumber: good.accountNumber }),
        "bankCode must be given once",
      );
      assertValidation(
        await resolve({ bankCode: good.bankCode, accountNumber: "123456789" }),
        "accountNumber must be a string of exactly 10 digits",
      );
      assertValidation(
        await resolve({ bankCode: "999", accountNumber: good.accountNumber }),
        "bankCode 999 is not a bank in GET /banks",
      );
      // One digit off: the NUBAN check digit catches the typo.
      const last = Number(good.accountNumber.at(-1));
      const typo = `${good.accountNumber.slice(0, 9)}${(last + 1) % 10}`;
      assertValidation(
        await resolve({ bankCode: good.bankCode, accountNumber: typo }),
        `accountNumber ${typo} is not a valid account number at ${good.bankName}: check its digits`,
      );
    });

    test("every answer is one the OpenAPI document declares", async () => {
      const contract = new Contract(await fetchDocument(h));
      const good = payee("successful");
      const bad = payee("unresolvable");
      contract.check("get", "/banks", await get("/banks"));
      contract.check(
        "head",
        "/banks",
        await h.request({ method: "HEAD", url: `${API}/banks`, as: business }),
      );
      for (const response of [
        await resolve({ bankCode: good.bankCode, accountNumber: good.accountNumber }),
        await resolve({ bankCode: bad.bankCode, accountNumber: bad.accountNumber }),
        await resolve({ bankCode: "999", accountNumber: good.accountNumber }),
        await h.app.inject({ url: `${API}/banks/resolve` }),
      ]) {
        contract.check("get", "/banks/resolve", response);
      }
    });

    test("GET /sandbox/payout-accounts lists the destinations with their outcomes; off the sandbox it does not exist", async () => {
      const listed = await get("/sandbox/payout-accounts");
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(listed.json(), { status: "success", data: SANDBOX_PAYEES });
      new Contract(await fetchDocument(h)).check("get", "/sandbox/payout-accounts", listed);
      const off = await createHarness({ dialect, env: { SANDBOX: "false" } });
      try {
        const asked = await off.request({
          url: `${API}/sandbox/payout-accounts`,
          as: await off.createBusiness(),
        });
        assertFailCode(asked, 404, "NOT_FOUND");
      } finally {
        await off.close();
      }
    });

    test("authentication comes before the question", async () => {
      const unsigned = await h.app.inject({ url: `${API}/banks/resolve?bankCode=x` });
      assertFailCode(unsigned, 401, "MISSING_HEADER");
      assertFailCode(await h.app.inject({ url: `${API}/banks` }), 401, "MISSING_HEADER");
      const head = await h.request({ method: "HEAD", url: `${API}/banks`, as: business });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, "");
    });
  });
}
