import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { DATABASE_KINDS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertOnePermanentAccount } from "./helpers/invariants.js";

let h: Harness;
let business: TestBusiness;
const masterKey = randomBytes(32);

for (const dialect of DATABASE_KINDS) {
  describe(`on ${dialect}`, () => {
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      business = await h.createBusiness();
    });
    after(() => h.close());

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
        await assertOnePermanentAccount(h.storage.db, business.businessId, email, numbers);
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

      test("a burst of new, known and temporary customers leaves dense ordinals and the right count", async () => {
        const fresh = await h.createBusiness();
        let calls = 0;
        // Each body differs (the name), so no request is a replay of another.
        const generate = (email: string, temporary = false) =>
          h.request({
            url: `${API}/account/generate${temporary ? "/temporary" : ""}`,
            body: customer({ email, name: `Customer ${++calls}` }),
            as: fresh,
          });
        for (let i = 0; i < 10; i++) assert.equal((await generate(`known${i}@example.com`)).statusCode, 201);
        // PostgreSQL creates a business's concurrent accounts in batches (one statement each);
        // a known customer's request in the same burst re-issues instead.
        const burst = await Promise.all([
          ...Array.from({ length: 20 }, (_, i) => generate(`known${i % 10}@example.com`)),
          ...Array.from({ length: 20 }, (_, i) => generate(`new${i}@example.com`)),
          ...Array.from({ length: 20 }, (_, i) => generate(`temp${i}@example.com`, true)),
        ]);
        const statuses = burst.map((r) => r.statusCode);
        assert.deepEqual(statuses.slice(0, 20), Array(20).fill(200), "the known customers were re-issued");
        assert.deepEqual(statuses.slice(20), Array(40).fill(201), "the new ones were created");
        const rows = await h.storage.db
          .selectFrom("accounts")
          .select(["ordinal", "kind", "email"])
          .where("business_id", "=", fresh.businessId)
          .orderBy("ordinal")
          .execute();
        assert.deepEqual(
          rows.map((row) => Number(row.ordinal)),
          Array.from({ length: 50 }, (_, i) => i + 1),
          "ordinals 1..50, no gap, no repeat",
        );
        const listed = await h.request({ url: `${API}/account/list?limit=1`, as: fresh });
        assert.equal(listed.json().pagination.total, 50);
        const reissued = await h.storage.db
          .selectFrom("account_numbers")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("business_id", "=", fresh.businessId)
          .where("retired_at", "is not", null)
          .executeTakeFirstOrThrow();
        assert.equal(Number(reissued.count), 20, "each re-issue retired one number");
      });

      test("a burst spread over three businesses: each keeps dense ordinals and its own count; one email is a customer of each", async () => {
        const businesses = [await h.createBusiness(), await h.createBusiness(), await h.createBusiness()];
        // PostgreSQL creates concurrent accounts of every business in one statement per batch.
        const burst = await Promise.all(
          Array.from({ length: 45 }, (_, i) => {
            const as = businesses[i % 3] as TestBusiness;
            // The same five emails in each business, and one more business's worth of new ones.
            const email = i < 15 ? `shared${i % 5}@example.com` : `own${i}@example.com`;
            return h.request({
              url: `${API}/account/generate`,
              body: customer({ email, name: `C ${i}` }),
              as,
            });
          }),
        );
        const created = burst.filter((r) => r.statusCode === 201).length;
        assert.equal(created + burst.filter((r) => r.statusCode === 200).length, 45);
        assert.equal(created, 45, "every (business, email) pair is new");
        for (const fresh of businesses) {
          const rows = await h.storage.db
            .selectFrom("accounts")
            .select("ordinal")
            .where("business_id", "=", fresh.businessId)
            .orderBy("ordinal")
            .execute();
          assert.deepEqual(
            rows.map((row) => Number(row.ordinal)),
            Array.from({ length: 15 }, (_, i) => i + 1),
            "ordinals 1..15 in each business",
          );
          const listed = await h.request({ url: `${API}/account/list?limit=1`, as: fresh });
          assert.equal(listed.json().pagination.total, 15);
        }
      });
    });
  });
}
