import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { sign } from "../src/auth/signature.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { rawRequest } from "./helpers/raw-http.js";

// A captured signed request, re-sent with its signature spelled differently, must never run
// again: whatever authenticates maps to the one record of the signature that was verified.

/** Every Unicode space, the zero-width ones, and the controls a client might send around a value. */
const SPACES = [
  " ",
  "\t",
  "\u00a0",
  "\u1680",
  ..."\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
  "\u200b",
  "\u0085",
  "\u000b",
  "\u000c",
];

/** How a character reaches the server: one latin1 byte when it has one, else its UTF-8 bytes read as latin1. */
const onTheWire = (text: string) =>
  [...text].map((c) => (c.charCodeAt(0) <= 0xff ? c : Buffer.from(c, "utf8").toString("latin1"))).join("");

const variant = fc.record({
  upper: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
  before: fc.array(fc.constantFrom(...SPACES), { maxLength: 3 }),
  after: fc.array(fc.constantFrom(...SPACES), { maxLength: 3 }),
});

const RUNS = 25;

for (const dialect of DIALECTS) {
  describe(`replayed signatures, spelled any way, on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let port: number;

    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
      await h.app.listen({ port: 0, host: "127.0.0.1" });
      port = (h.app.server.address() as AddressInfo).port;
    });
    after(() => h.close());

    for (const path of ["/account/generate", "/account/generate/temporary"]) {
      test(`POST ${path}: every spelling that authenticates gets the first answer, and runs nothing`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(variant, { minLength: 1, maxLength: 6 }), async (variants) => {
            const body = JSON.stringify(customer());
            const timestamp = String(Date.now());
            const signature = sign(business.secretKey, body, timestamp);
            const send = (spelled: string) =>
              rawRequest(
                port,
                "POST",
                `${API}${path}`,
                [
                  ["Content-Type", "application/json"],
                  ["x-api-key", business.apiKey],
                  ["x-timestamp", timestamp],
                  ["x-signature", spelled],
                ],
                body,
              );
            const first = await send(signature);
            assert.equal(first.statusCode, 201, first.body);
            for (const v of variants) {
              const cased = [...signature].map((c, i) => (v.upper[i] ? c.toUpperCase() : c)).join("");
              const spelled = onTheWire(`${v.before.join("")}${cased}${v.after.join("")}`);
              const again = await send(spelled);
              // Refused (a header HTTP itself does not allow is a 400 before any request exists).
              if (again.statusCode === 400 || again.statusCode === 401) {
                assert.equal(JSON.parse(again.body).status, "fail");
                continue;
              }
              assert.equal(again.statusCode, 201, `${JSON.stringify(spelled)}: ${again.body}`);
              assert.equal(again.headers["idempotent-replayed"], "true", JSON.stringify(spelled));
              assert.equal(again.body, first.body, "the first answer, not a new account");
            }
            const email = JSON.parse(body).email as string;
            const accounts = await h.storage.db
              .selectFrom("accounts")
              .select(["id", "version"])
              .where("email", "=", email)
              .execute();
            assert.equal(accounts.length, 1, "one account");
            assert.equal(accounts[0]?.version, 1, "never re-issued");
            const records = await h.storage.db
              .selectFrom("request_records")
              .select("key")
              .where("business_id", "=", business.businessId)
              .where("kind", "=", "signature")
              .where("key", "like", `%${signature.slice(0, 16)}%`)
              .execute();
            assert.deepEqual(
              records.map((r) => r.key),
              [`${business.keyId}:${signature}`],
              "one record, keyed on the canonical signature",
            );
          }),
          { numRuns: RUNS },
        );
      });
    }

    test("a signature with a no-break space around it is refused, not a new request", async () => {
      const body = JSON.stringify(customer());
      const timestamp = String(Date.now());
      const signature = sign(business.secretKey, body, timestamp);
      for (const spelled of [`${signature}\xa0`, `\xa0${signature}`, `\xa0\xa0${signature}\xa0`]) {
        const response = await rawRequest(
          port,
          "POST",
          `${API}/account/generate/temporary`,
          [
            ["Content-Type", "application/json"],
            ["x-api-key", business.apiKey],
            ["x-timestamp", timestamp],
            ["x-signature", spelled],
          ],
          body,
        );
        assert.equal(response.statusCode, 401, response.body);
        assert.equal(JSON.parse(response.body).message, "Invalid signature");
      }
    });
  });
}
