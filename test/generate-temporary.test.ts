import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { isValidNuban } from "../src/providers/nuban.js";
import { assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertAnsweredAsListedAndStored } from "./helpers/invariants.js";

const URL = `${API}/account/generate/temporary`;

let h: Harness;
let business: TestBusiness;

for (const dialect of DIALECTS) {
  describe(`on ${dialect}`, () => {
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Acme Stores" });
    });
    after(() => h.close());

    const generate = (body: unknown) => h.request({ url: URL, body, as: business });

    describe("POST /account/generate/temporary", () => {
      test("creates a temporary account: 201, isTemporary, expiresAt = creation + duration, expiresInMinutes", async () => {
        const before = Date.now();
        const response = await generate(
          customer({ name: "Ada Obi", email: "Ada@Example.com", duration: 90 }),
        );
        const afterwards = Date.now();
        assert.equal(response.statusCode, 201, response.body);
        const { status, data } = response.json();
        assert.equal(status, "success");
        assert.equal(data.bankName, "Virtual Bank");
        assert.ok(isValidNuban("999240", data.accountNumber));
        assert.equal(data.accountName, "Acme Stores/Ada Obi");
        assert.equal(data.userName, "Ada Obi");
        assert.equal(data.email, "ada@example.com");
        assert.equal(data.isTemporary, true);
        assert.equal(data.expiresInMinutes, 90);
        const created = Date.parse(data.createdAt);
        assert.ok(created >= before && created <= afterwards);
        assert.equal(Date.parse(data.expiresAt), created + 90 * 60_000);
        assert.equal(data.expiresAt, new Date(Date.parse(data.expiresAt)).toISOString(), "ISO 8601");
        assert.ok(!response.body.includes("22345678901"), "no BVN in the response");

        const row = await h.storage.db
          .selectFrom("accounts")
          .selectAll()
          .where("account_number", "=", data.accountNumber)
          .executeTakeFirstOrThrow();
        assert.equal(row.kind, "temporary");
        assert.equal(row.expires_at, data.expiresAt, "expiresAt is persisted");
        assert.equal(row.duration_minutes, 90);
      });

      test("duration defaults to 40 minutes (absent or null)", async () => {
        for (const body of [customer(), customer({ duration: null })]) {
          const { data } = (await generate(body)).json();
          assert.equal(data.expiresInMinutes, 40);
          assert.equal(Date.parse(data.expiresAt) - Date.parse(data.createdAt), 40 * 60_000);
        }
      });

      test("duration accepts 1 and 10080", async () => {
        for (const duration of [1, 10_080]) {
          const response = await generate(customer({ duration }));
          assert.equal(response.statusCode, 201, response.body);
          assert.equal(response.json().data.expiresInMinutes, duration);
        }
      });

      test("any other duration is a 400", async () => {
        for (const duration of [0, -5, 10_081, 1.5, "40", true, [40], { minutes: 40 }]) {
          const response = await generate(customer({ duration }));
          assert.equal(response.statusCode, 400, `${JSON.stringify(duration)}: ${response.body}`);
          assert.match(response.json().message, /^duration must be/);
        }
      });

      test("each call creates a new account, even for the same email, separate from the permanent one", async () => {
        const email = "temp-repeat@example.com";
        const permanent = await h.request({
          url: `${API}/account/generate`,
          body: customer({ email }),
          as: business,
        });
        const a = await generate(customer({ email }));
        const b = await generate(customer({ email }));
        assert.equal(a.statusCode, 201);
        assert.equal(b.statusCode, 201);
        const numbers = new Set([permanent, a, b].map((r) => r.json().data.accountNumber));
        assert.equal(numbers.size, 3);
        const rows = await h.storage.db
          .selectFrom("accounts")
          .select("kind")
          .where("email", "=", email)
          .execute();
        assert.deepEqual(rows.map((r) => r.kind).sort(), ["permanent", "temporary", "temporary"]);
      });

      test("the same identity and validation rules as the permanent endpoint", async () => {
        assertValidation(await generate({}), "name is required");
        assertValidation(await generate({ name: "Ada" }), "email is required");
        assertValidation(
          await generate({ name: "Ada", email: "a@example.com", duration: 5 }),
          "bvn or nin is required",
        );
        assertValidation(
          await generate(customer({ bvn: "123" })),
          "bvn must be a string of exactly 11 digits",
        );
        for (const field of ["BVN", "nin", "NIN", "ninNumber"]) {
          const response = await generate(customer({ bvn: undefined, [field]: "12345678901" }));
          assert.equal(response.statusCode, 201, `${field}: ${response.body}`);
        }
        const bvnWins = await generate(customer({ nin: "not-a-nin" }));
        assert.equal(bvnWins.statusCode, 201);
      });

      test("the same name rules: deceiving names and lone surrogates are refused before duration", async () => {
        assertValidation(
          await generate(customer({ name: "\u202eAda", duration: 0 })),
          "name must not contain bidirectional control characters",
        );
        assertValidation(
          await generate(customer({ name: "\u200b\u3164" })),
          "name must contain a visible character",
        );
        assertValidation(
          await generate('{"name":"Ada\\ud800","email":"a@example.com","bvn":"22345678901"}'),
          "name must not contain unpaired surrogates (it must be valid Unicode text)",
        );
        assertValidation(
          await generate(customer({ email: `${"t".repeat(65)}@example.com` })),
          "email must have at most 64 characters before the @",
        );
      });

      test("what is answered is what is stored and listed, for a name NFC changes", async () => {
        const name = "Jose\u0301 Ma\u0302o";
        const response = await generate(customer({ name }));
        assert.equal(response.statusCode, 201, response.body);
        const { data } = response.json();
        assert.equal(data.userName, "Jos\u00e9 M\u00e2o");
        await assertAnsweredAsListedAndStored(h, business, data);
      });

      test("identity is checked before duration", async () => {
        assertValidation(
          await generate({ name: "Ada", email: "a@example.com", duration: 0 }),
          "bvn or nin is required",
        );
      });

      test("provider rejection is a 400 with its message; an unreachable provider a 502 with nothing written", async () => {
        const rejected = await generate(customer({ bvn: "00000000001" }));
        assert.equal(rejected.statusCode, 400);
        assert.equal(rejected.json().message, "BVN verification failed: no record found for this BVN");
        const email = "temp-unreachable@example.com";
        const unreachable = await generate(customer({ email, bvn: "00000000003" }));
        assert.equal(unreachable.statusCode, 502);
        const rows = await h.storage.db
          .selectFrom("accounts")
          .select("id")
          .where("email", "=", email)
          .execute();
        assert.equal(rows.length, 0);
      });
    });
  });
}
