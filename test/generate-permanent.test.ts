import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { isValidNuban } from "../src/providers/nuban.js";
import { assertValidation } from "./helpers/assertions.js";
import { DATABASE_KINDS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertAnsweredAsListedAndStored } from "./helpers/invariants.js";

const URL = `${API}/account/generate`;

let h: Harness;
let business: TestBusiness;

for (const dialect of DATABASE_KINDS) {
  describe(`on ${dialect}`, () => {
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Acme Stores" });
    });
    after(() => h.close());

    const generate = (body: unknown, as: TestBusiness = business) => h.request({ url: URL, body, as });
    /** How many accounts hold this email, in any business. */
    const accountsFor = async (email: string) =>
      (await h.storage.db.selectFrom("accounts").select("id").where("email", "=", email).execute()).length;

    describe("POST /account/generate", () => {
      test("creates a permanent account: 201 with exactly the spec's fields", async () => {
        const response = await generate(customer({ name: "Ada Obi" }));
        assert.equal(response.statusCode, 201);
        const body = response.json();
        assert.equal(body.status, "success");
        assert.deepEqual(Object.keys(body.data).sort(), [
          "accountName",
          "accountNumber",
          "bankName",
          "userName",
        ]);
        assert.equal(body.data.bankName, "Virtual Bank");
        assert.match(body.data.accountNumber, /^\d{10}$/);
        assert.ok(
          isValidNuban("999240", body.data.accountNumber),
          "a valid NUBAN for the configured institution",
        );
        assert.equal(body.data.accountName, "Acme Stores/Ada Obi");
        assert.equal(body.data.userName, "Ada Obi");
      });

      test("what is answered is what is stored and listed, for names NFC changes", async () => {
        const other = await h.createBusiness({ name: "Cafe\u0301 Ltd" });
        // Decomposed accents (NFD), a combining sequence with no precomposed form, and Hangul jamo.
        const names = ["Jose\u0301 Ma\u0302o", "A\u0323\u0301da", "\u1100\u1161\u11a8 Obi"];
        for (const name of names) {
          const response = await generate(customer({ name }), other);
          assert.equal(response.statusCode, 201, response.body);
          const { data } = response.json();
          assert.equal(data.userName, name.normalize("NFC"));
          assert.notEqual(data.userName, name, "the test name is one NFC changes");
          assert.equal(data.accountName, `Caf\u00e9 Ltd/${name.normalize("NFC")}`);
          await assertAnsweredAsListedAndStored(h, other, data);
        }
      });

      test("accepts a NIN instead of a BVN, under each of its names", async () => {
        for (const field of ["nin", "NIN", "ninNumber"]) {
          const response = await generate(customer({ bvn: undefined, [field]: "12345678901" }));
          assert.equal(response.statusCode, 201, `${field}: ${response.body}`);
        }
      });

      test("accepts BVN in upper case", async () => {
        const response = await generate(customer({ bvn: undefined, BVN: "22345678901" }));
        assert.equal(response.statusCode, 201, response.body);
      });

      test("the same email again re-issues the same account: 200, a new number, the new name, no second account", async () => {
        const email = "repeat@example.com";
        const first = await generate(customer({ email, name: "First Name" }));
        const second = await generate(customer({ email: "  REPEAT@Example.COM ", name: "Second Name" }));
        assert.equal(first.statusCode, 201);
        assert.equal(second.statusCode, 200);
        assert.notEqual(second.json().data.accountNumber, first.json().data.accountNumber);
        assert.equal(second.json().data.accountName, "Acme Stores/Second Name");

        const rows = await h.storage.db
          .selectFrom("accounts")
          .selectAll()
          .where("business_id", "=", business.businessId)
          .where("email", "=", email)
          .execute();
        assert.equal(rows.length, 1, "one permanent account per business and email");
        assert.equal(rows[0]?.account_number, second.json().data.accountNumber);
        assert.equal(rows[0]?.customer_name, "Second Name");

        const ledger = await h.storage.db
          .selectFrom("account_numbers")
          .selectAll()
          .where("account_id", "=", rows[0]?.id as string)
          .execute();
        const retired = ledger.find((n) => n.account_number === first.json().data.accountNumber);
        assert.ok(retired?.retired_at, "the old number is retired");
        assert.equal(
          ledger.find((n) => n.account_number === second.json().data.accountNumber)?.retired_at,
          null,
        );

        // The retired number is no account (404), and says which number replaced it; another
        // business asking for it learns nothing.
        const old = await h.request({
          url: `${API}/account/${first.json().data.accountNumber}`,
          as: business,
        });
        assert.equal(old.statusCode, 404);
        assert.equal(old.json().error.code, "ACCOUNT_RETIRED");
        assert.equal(
          old.json().message,
          `Account not found: this number was replaced when the account was re-issued; its number is now ${second.json().data.accountNumber}`,
        );
        const other = await h.createBusiness({ name: "Nosy Stores" });
        const theirs = await h.request({
          url: `${API}/account/${first.json().data.accountNumber}`,
          as: other,
        });
        assert.equal(theirs.json().error.code, "ACCOUNT_NOT_FOUND");
        assert.equal(theirs.json().message, "Account not found");
      });

      test("a re-issued account keeps its place in the list (creation time unchanged)", async () => {
        const other = await h.createBusiness();
        await generate(customer({ email: "a@example.com" }), other);
        await generate(customer({ email: "b@example.com" }), other);
        const reissued = await generate(customer({ email: "a@example.com" }), other);
        const list = (await h.request({ url: `${API}/account/list`, as: other })).json();
        assert.deepEqual(
          list.data.map((a: { email: string }) => a.email),
          ["b@example.com", "a@example.com"],
        );
        assert.equal(list.data[1].accountNumber, reissued.json().data.accountNumber);
        assert.equal(list.pagination.total, 2);
      });

      describe("validation (name, then email, then identity; the first problem wins)", () => {
        test("missing fields are named: name, then email, then bvn or nin", async () => {
          assertValidation(await generate({}), "name is required");
          assertValidation(
            await generate({ email: "x@example.com", bvn: "22345678901" }),
            "name is required",
          );
          assertValidation(await generate({ name: "Ada" }), "email is required");
          assertValidation(await generate({ name: "Ada", bvn: "22345678901" }), "email is required");
          assertValidation(
            await generate({ name: "Ada", email: "ada@example.com" }),
            "bvn or nin is required",
          );
        });

        test("an empty POST body is treated as {} and says what is required", async () => {
          assertValidation(await generate(""), "name is required");
        });

        test("null counts as not sent", async () => {
          assertValidation(await generate(customer({ name: null })), "name is required");
          assertValidation(await generate(customer({ bvn: null })), "bvn or nin is required");
          const ninInstead = await generate(customer({ bvn: null, nin: "12345678901" }));
          assert.equal(ninInstead.statusCode, 201, ninInstead.body);
        });

        test("present but wrong values get a precise 400", async () => {
          assertValidation(await generate(customer({ name: 42 })), "name must be a string");
          assertValidation(await generate(customer({ name: "   " })), "name must be a non-empty string");
          assertValidation(
            await generate(customer({ name: "Ada\u0000Obi" })),
            "name must not contain control characters",
          );
          assertValidation(
            await generate(customer({ name: "x".repeat(201) })),
            "name must be at most 200 characters",
          );
          assertValidation(
            await generate(customer({ email: "not-an-email" })),
            "email must be a valid email address",
          );
          assertValidation(await generate(customer({ email: ["a@example.com"] })), "email must be a string");
          assertValidation(
            await generate(customer({ bvn: "1234567890" })),
            "bvn must be a string of exactly 11 digits",
          );
          assertValidation(
            await generate(customer({ bvn: 22345678901 })),
            "bvn must be a string of exactly 11 digits",
          );
          assertValidation(
            await generate(customer({ bvn: undefined, BVN: "2234567890a" })),
            "BVN must be a string of exactly 11 digits",
          );
          assertValidation(
            await generate(customer({ bvn: undefined, ninNumber: "123" })),
            "ninNumber must be a string of exactly 11 digits",
          );
        });

        test("names that could deceive a reader are refused, and nothing is written", async () => {
          const email = "deceiver@example.com";
          const cases = [
            ["Ada \u202eibO", "name must not contain bidirectional control characters"],
            ["\u2066Ada\u2069", "name must not contain bidirectional control characters"],
            ["\u200b\u200c\u200d", "name must contain a visible character"],
            ["\u3164", "name must contain a visible character"],
            ["\u115f\u1160 \uffa0\u180e\u2060", "name must contain a visible character"],
            ["Ada\u001b[2J", "name must not contain control characters"],
          ];
          for (const [name, message] of cases) {
            assertValidation(await generate(customer({ name, email })), message as string);
          }
          assert.equal(await accountsFor(email), 0, "nothing written");
        });

        test("a lone surrogate, sent as a JSON escape, is a 400 naming name (not stored mangled)", async () => {
          for (const name of ["\\ud800", "Ada \\udfff", "\\ud83d Ada"]) {
            const body = `{"name":"${name}","email":"lone@example.com","bvn":"22345678901"}`;
            assertValidation(
              await generate(body),
              "name must not contain unpaired surrogates (it must be valid Unicode text)",
            );
          }
          // A pair sent the same way is one character, and is fine.
          const paired = await generate(
            '{"name":"Ada \\ud83d\\ude00","email":"paired@example.com","bvn":"22345678901"}',
          );
          assert.equal(paired.statusCode, 201, paired.body);
          assert.equal(paired.json().data.userName, "Ada \u{1f600}");
        });

        test("an email whose local part is over 64 characters is refused (RFC 5321)", async () => {
          assertValidation(
            await generate(customer({ email: `${"a".repeat(65)}@example.com` })),
            "email must have at most 64 characters before the @",
          );
          const longest = await generate(customer({ email: `${"a".repeat(64)}@example.com` }));
          assert.equal(longest.statusCode, 201, longest.body);
        });

        test("the first problem wins", async () => {
          assertValidation(await generate({ name: 1, email: "bad", bvn: "bad" }), "name must be a string");
          assertValidation(
            await generate({ name: "Ada", email: "bad", bvn: "bad" }),
            "email must be a valid email address",
          );
        });

        test("when bvn is present, nin and its aliases are ignored entirely", async () => {
          const response = await generate(customer({ nin: "bad", NIN: 5, ninNumber: null }));
          assert.equal(response.statusCode, 201, response.body);
          assertValidation(
            await generate(customer({ bvn: "bad", nin: "12345678901" })),
            "bvn must be a string of exactly 11 digits",
          );
        });

        test("unknown fields are ignored", async () => {
          const response = await generate(customer({ phone: "+2348000000000", nested: { a: 1 } }));
          assert.equal(response.statusCode, 201, response.body);
        });
      });

      describe("the provider's own answers", () => {
        test("its rejection is a 400 carrying its message (spec rule 6)", async () => {
          const cases = [
            ["bvn", "00000000001", "BVN verification failed: no record found for this BVN"],
            ["nin", "00000000001", "NIN verification failed: no record found for this NIN"],
          ] as const;
          for (const [field, number, message] of cases) {
            const response = await generate(customer({ bvn: undefined, [field]: number }));
            assert.equal(response.statusCode, 400, response.body);
            assert.equal(response.json().status, "fail");
            assert.equal(response.json().message, message);
            assert.equal(response.json().error.code, "PROVIDER_REJECTED");
          }
        });

        test("a number registered in another name is 422 IDENTITY_MISMATCH (issue 46: the name rule)", async () => {
          const email = "mismatch@example.com";
          const response = await generate(customer({ email, bvn: "00000000002" }));
          assert.equal(response.statusCode, 422, response.body);
          assert.equal(response.json().error.code, "IDENTITY_MISMATCH");
          assert.equal(
            response.json().message,
            'The BVN is registered in another name than "Ada Obi": the names must share at least two words',
          );
          assert.equal(await accountsFor(email), 0, "nothing written");
        });

        test("an unreachable provider is a 502 and nothing is written", async () => {
          const email = "unreachable@example.com";
          const response = await generate(customer({ email, bvn: "00000000003" }));
          assert.equal(response.statusCode, 502);
          assert.equal(response.json().error.code, "PROVIDER_UNAVAILABLE");
          assert.equal(await accountsFor(email), 0, "nothing written");
        });
      });

      test("responses never contain the BVN or NIN, and neither is stored in plaintext", async () => {
        const bvn = "29876543210";
        const nin = "39876543211";
        const a = await generate(customer({ bvn }));
        const b = await generate(customer({ bvn: undefined, nin }));
        for (const response of [a, b]) {
          assert.ok(!response.body.includes(bvn) && !response.body.includes(nin));
        }
        const rows = await h.storage.db.selectFrom("accounts").selectAll().execute();
        const dump = JSON.stringify(rows);
        assert.ok(!dump.includes(bvn) && !dump.includes(nin), "no identity number in the accounts table");
        const stored = rows.find((r) => r.account_number === a.json().data.accountNumber);
        assert.equal(stored?.identity_type, "bvn");
        assert.equal(stored?.identity_last4, "3210");
        assert.match(stored?.identity_fingerprint ?? "", /^[0-9a-f]{64}$/);
      });
    });
  });
}
