import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { sign } from "../src/auth/signature.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, BODY_LIMIT, createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

// Property: whatever arrives, the answer is a 2xx success or a 4xx fail envelope, the process
// and Object.prototype are untouched, only valid requests create accounts, and an accepted name
// is one that cannot deceive, answered exactly as it is stored.

const RUNS = 5_000;

/** Lone surrogates cannot be URL-encoded: the client would refuse to send them, not the server. */
const wellFormed = (text: string) => text.replace(/\p{Surrogate}/gu, "\ufffd");
/** What no accepted name may contain, whatever was sent. */
const DECEIVING = /[\p{Cc}\p{Surrogate}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const FIELDS = [
  "name",
  "email",
  "bvn",
  "BVN",
  "nin",
  "NIN",
  "ninNumber",
  "duration",
  "__proto__",
  "constructor",
  "prototype",
];

const hostileString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\u202e",
    "\ud800",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "ada@example.com",
    "22345678901",
    "12345678901",
  ),
  fc.integer({ min: 1, max: 40_000 }).map((n) => "x".repeat(n)),
);

const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString,
    fc.double(),
    fc.integer(),
    fc.bigInt().map((n) => Number(n)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...FIELDS, "a", "toString"), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A body as raw text: JSON objects of the API's fields (and poison), other JSON, or not JSON at all. */
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), hostileValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc
    .record({
      name: hostileString,
      email: fc.oneof(fc.emailAddress(), hostileString),
      bvn: fc.oneof(fc.stringMatching(/^\d{11}$/), hostileString),
      duration: fc.oneof(fc.integer({ min: -5, max: 20_000 }), hostileValue),
    })
    .map((o) => JSON.stringify(o)),
  fc.constantFrom(
    '{"__proto__":{"polluted":true},"name":"a","email":"a@example.com","bvn":"22345678901"}',
    '{"constructor":{"prototype":{"polluted":true}},"name":"a"}',
    `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
    `{"a":${'{"a":'.repeat(2_000)}1${"}".repeat(2_000)}}`,
    "null",
    "[]",
    '"text"',
  ),
  hostileValue.map((v) => JSON.stringify(v) ?? "undefined"),
  hostileString,
);

const request = fc.record({
  method: fc.constantFrom("GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH"),
  path: fc.constantFrom(
    "/account/generate",
    "/account/generate/temporary",
    "/account/list",
    "/account/../account/list",
    "/nope",
  ),
  query: fc.oneof(
    fc.constant(""),
    fc
      .array(fc.tuple(fc.constantFrom("page", "limit", "x", "__proto__"), hostileString), { maxLength: 25 })
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(wellFormed(v))}`).join("&")}`),
  ),
  body: fc.option(body, { nil: undefined }),
  contentType: fc.constantFrom(
    "application/json",
    "application/json",
    "text/plain",
    "application/json; charset=latin1",
    undefined,
  ),
  signing: fc.constantFrom(
    "valid",
    "valid",
    "valid",
    "wrong-signature",
    "garbage-headers",
    "stale",
    "unknown-key",
  ),
  garbage: hostileString,
});

/** Names built to deceive: bidi controls, invisible fillers, lone surrogates, controls, decomposed accents. */
const deceivingName = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "\u202e",
        "\u202d",
        "\u2066",
        "\u2069",
        "\u200e",
        "\u061c",
        "\u200b",
        "\u200d",
        "\u2060",
        "\ufeff",
        "\u3164",
        "\u115f",
        "\uffa0",
        "\u180e",
        "\ud800",
        "\udfff",
        "\u0000",
        "\u001b[2J",
        "\n",
      ),
      fc.constantFrom("a", "Ada", " ", "e\u0301", "\u1100\u1161", "😀", "\u3000"),
      fc.string({ unit: "grapheme", maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(""));

for (const dialect of DIALECTS) {
  describe(`deceiving names on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
    });
    after(() => h.close());

    test("a name is refused naming `name`, or accepted as sent (NFC, trimmed) and answered as stored", async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(deceivingName, async (name) => {
          // JSON.stringify writes a lone surrogate as a \ud800 escape, as a client's JSON would.
          const body = JSON.stringify({ name, email: `deceive.${++n}@example.com`, bvn: "22345678901" });
          const response = await h.request({ url: `${API}/account/generate`, body, as: business });
          if (response.statusCode === 400) {
            assert.equal(response.json().error.code, "VALIDATION_FAILED");
            assert.match(response.json().message, /^name /);
            return;
          }
          assert.equal(response.statusCode, 201, response.body);
          const { userName, accountName, accountNumber } = response.json().data;
          assert.equal(userName, name.normalize("NFC").trim());
          assert.doesNotMatch(userName, DECEIVING);
          assert.match(userName, /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u);
          const row = await h.storage.db
            .selectFrom("accounts")
            .select(["customer_name", "account_name"])
            .where("account_number", "=", accountNumber)
            .executeTakeFirstOrThrow();
          assert.deepEqual(row, { customer_name: userName, account_name: accountName });
        }),
        { numRuns: 300 },
      );
    });
  });

  describe(`hostile requests on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
    });
    after(() => h.close());

    test(`${RUNS} generated hostile requests: no 5xx, always the envelope, no pollution, no stray account`, async () => {
      let created = 0;
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const payload = r.body;
          const timestamp = r.signing === "stale" ? String(Date.now() - 3_600_000) : String(Date.now());
          const signed = payload ?? "{}";
          const headers: Record<string, string> = {
            "x-api-key": r.signing === "unknown-key" ? `vak_${r.garbage}` : business.apiKey,
            "x-timestamp": timestamp,
            "x-signature":
              r.signing === "wrong-signature"
                ? sign("not-the-secret", signed, timestamp)
                : sign(business.secretKey, signed, timestamp),
          };
          if (r.signing === "garbage-headers") {
            headers["x-timestamp"] = r.garbage;
            headers["x-signature"] = r.garbage;
          }
          if (r.contentType && payload !== undefined) headers["content-type"] = r.contentType;
          for (const [name, value] of Object.entries(headers)) {
            // Characters HTTP cannot carry in a header are refused by the client, not by us.
            if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value))
              headers[name] = encodeURIComponent(wellFormed(value));
          }
          const response = await h.app.inject({
            method: r.method as "GET",
            url: `${API}${r.path}${r.query}`,
            headers,
            ...(payload === undefined ? {} : { payload }),
          });
          assert.ok(response.statusCode < 500, `${response.statusCode}: ${response.body}`);
          const parsed = JSON.parse(response.body);
          if (response.statusCode < 300) {
            assert.equal(parsed.status, "success");
            if (response.statusCode === 201) created++;
          } else {
            assert.equal(parsed.status, "fail");
            assert.equal(typeof parsed.message, "string");
            assert.equal(typeof parsed.error.code, "string");
            assert.equal(parsed.error.statusCode, response.statusCode);
          }
          const postRoute = r.method === "POST" && r.path.startsWith("/account/generate");
          if (postRoute && response.statusCode < 300) {
            const { userName, accountName, accountNumber } = parsed.data;
            assert.doesNotMatch(userName, DECEIVING, "no control, bidi control or lone surrogate");
            assert.match(
              userName,
              /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u,
              "something visible",
            );
            const row = await h.storage.db
              .selectFrom("accounts")
              .select(["customer_name", "account_name"])
              .where("account_number", "=", accountNumber)
              .executeTakeFirstOrThrow();
            assert.deepEqual(
              row,
              { customer_name: userName, account_name: accountName },
              "what is answered is what is stored",
            );
          }
          if (postRoute && payload !== undefined && Buffer.byteLength(payload) > BODY_LIMIT) {
            assert.equal(response.statusCode, 413);
          }
        }),
        { numRuns: RUNS },
      );
      assert.deepEqual(Object.keys(Object.prototype), [], "Object.prototype untouched");
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      const accounts = await h.storage.db
        .selectFrom("accounts")
        .select("id")
        .where("business_id", "=", business.businessId)
        .execute();
      assert.equal(accounts.length, created, "every account comes from a request answered 201");
    });
  });
}
