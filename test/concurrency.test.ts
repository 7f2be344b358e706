import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertOnePermanentAccount } from "./helpers/invariants.js";

let h: Harness;
let business: TestBusiness;
const masterKey = randomBytes(32);

for (const dialect of DIALECTS) {
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
    });
  });
}
