import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildApp } from "../src/app.js";
import { openServices, type Services } from "../src/services.js";
import {
  API,
  BODY_LIMIT,
  createHarness,
  customer,
  type Harness,
  signedInject,
  type TestBusiness,
} from "./helpers/harness.js";

let h: Harness;
let business: TestBusiness;
const masterKey = randomBytes(32);

before(async () => {
  h = await createHarness({ masterKey });
  business = await h.createBusiness();
});
after(() => h.close());

/** Checks, from the database itself, the invariants of one customer's permanent account. */
async function assertOnePermanentAccount(
  services: Services,
  businessId: string,
  email: string,
  issued: string[],
) {
  const db = services.storage.db;
  const accounts = await db
    .selectFrom("accounts")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("email", "=", email)
    .where("kind", "=", "permanent")
    .execute();
  assert.equal(accounts.length, 1, "exactly one permanent account");
  const account = accounts[0];
  assert.ok(account);
  const ledger = await db
    .selectFrom("account_numbers")
    .selectAll()
    .where("account_id", "=", account.id)
    .orderBy("version")
    .execute();
  assert.deepEqual(
    ledger.map((n) => n.account_number).sort(),
    [...issued].sort(),
    "every issued number is recorded",
  );
  const current = ledger.filter((n) => n.retired_at === null);
  assert.equal(current.length, 1, "exactly one current number");
  assert.equal(current[0]?.account_number, account.account_number, "the account holds the current number");
  assert.equal(
    ledger.at(-1)?.account_number,
    account.account_number,
    "the current number is the last one issued",
  );
  assert.deepEqual(
    ledger.map((n) => n.version),
    Array.from({ length: issued.length }, (_, i) => i + 1),
    "one version per issue, in order",
  );
  assert.equal(account.version, issued.length);
}

describe("concurrency", () => {
  test("parallel generates for one email leave exactly one permanent account", async () => {
    const email = "parallel@example.com";
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        h.request({
          url: `${API}/account/generate`,
          body: customer({ email, name: `Name ${i}` }),
          as: business,
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 201).length, 1, "one creation");
    assert.equal(statuses.filter((s) => s === 200).length, 39, "every other call re-issued it");
    const numbers = responses.map((r) => r.json().data.accountNumber as string);
    assert.equal(new Set(numbers).size, 40, "every call was issued its own number");
    await assertOnePermanentAccount(h.services, business.businessId, email, numbers);
  });

  test("parallel creations never share a number", async () => {
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        h.request({
          url: `${API}/account/generate${i % 2 ? "/temporary" : ""}`,
          body: customer({ email: `many${i}@example.com` }),
          as: business,
        }),
      ),
    );
    assert.ok(responses.every((r) => r.statusCode === 201));
    const numbers = responses.map((r) => r.json().data.accountNumber);
    assert.equal(new Set(numbers).size, numbers.length);
  });

  test("two processes on one SQLite file (separate connections): one account per email, no shared number", async () => {
    const file = path.join(h.dir, "vas.db");
    const second = await openServices({
      database: { dialect: "sqlite", file },
      masterKey,
      institutionCode: "999240",
    });
    const app2 = buildApp({
      authenticator: second.authenticator,
      accounts: second.accounts,
      db: second.storage.db,
      bodyLimitBytes: BODY_LIMIT,
    });
    try {
      const email = "two-processes@example.com";
      const apps = [h.app, app2];
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          signedInject(apps[i % 2] as typeof h.app, {
            url: `${API}/account/generate`,
            body: customer({ email }),
            as: business,
          }),
        ),
      );
      assert.ok(
        responses.every((r) => r.statusCode === 200 || r.statusCode === 201),
        responses.map((r) => r.body).join("\n"),
      );
      assert.equal(responses.filter((r) => r.statusCode === 201).length, 1);
      const numbers = responses.map((r) => r.json().data.accountNumber as string);
      assert.equal(new Set(numbers).size, numbers.length);
      await assertOnePermanentAccount(h.services, business.businessId, email, numbers);

      const list = await h.request({ url: `${API}/account/list?limit=100`, as: business });
      const total = list.json().pagination.total;
      const ordinals = await h.storage.db
        .selectFrom("accounts")
        .select("ordinal")
        .where("business_id", "=", business.businessId)
        .orderBy("ordinal")
        .execute();
      assert.deepEqual(
        ordinals.map((o) => o.ordinal),
        Array.from({ length: total }, (_, i) => i + 1),
        "ordinals stay dense across processes",
      );
    } finally {
      await app2.close();
      await second.close();
    }
  });
});
