import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { sign } from "../src/auth/signature.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, BODY_LIMIT, createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

// Property: whatever arrives, the answer is a 2xx success or a 4xx fail envelope, the process
// and Object.prototype are untouched, and only valid requests create accounts.

const RUNS = 5_000;

/** Lone surrogates cannot be URL-encoded: the client would refuse to send them, not the server. */
const wellFormed = (text: string) => text.replace(/\p{Surrogate}/gu, "\ufffd");
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

for (const dialect of DIALECTS) {
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
