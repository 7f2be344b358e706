import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sign } from "../src/auth/signature.js";
import { assertFailMessage as assertFail } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  type Harness,
  type SignedRequest,
  type TestBusiness,
} from "./helpers/harness.js";

// Every row of the spec's authentication table, and the checks' order, on every endpoint.

interface Endpoint {
  name: string;
  request: () => Pick<SignedRequest, "method" | "url" | "body">;
}

const endpoints: Endpoint[] = [
  { name: "POST /account/generate", request: () => ({ url: `${API}/account/generate`, body: customer() }) },
  {
    name: "POST /account/generate/temporary",
    request: () => ({ url: `${API}/account/generate/temporary`, body: customer({ duration: 30 }) }),
  },
  { name: "GET /account/list", request: () => ({ method: "GET", url: `${API}/account/list` }) },
];

let h: Harness;
let business: TestBusiness;

for (const dialect of DIALECTS) {
  describe(`on ${dialect}`, () => {
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
    });
    after(() => h.close());

    for (const endpoint of endpoints) {
      describe(`authentication: ${endpoint.name}`, () => {
        test("a correctly signed request is accepted", async () => {
          const response = await h.request({ ...endpoint.request(), as: business });
          assert.ok(response.statusCode < 300, response.body);
        });

        for (const header of ["x-api-key", "x-signature", "x-timestamp"]) {
          test(`missing ${header} is 401 "Missing required header: ${header}"`, async () => {
            const response = await h.request({
              ...endpoint.request(),
              as: business,
              headers: { [header]: undefined },
            });
            assertFail(response, 401, `Missing required header: ${header}`);
          });
        }

        test("headers are checked in order: x-api-key, then x-signature, then x-timestamp", async () => {
          const none = { "x-api-key": undefined, "x-signature": undefined, "x-timestamp": undefined };
          assertFail(
            await h.request({ ...endpoint.request(), as: business, headers: none }),
            401,
            "Missing required header: x-api-key",
          );
          assertFail(
            await h.request({
              ...endpoint.request(),
              as: business,
              headers: { "x-signature": undefined, "x-timestamp": undefined },
            }),
            401,
            "Missing required header: x-signature",
          );
        });

        test("an unknown API key is 401 Invalid API key", async () => {
          const response = await h.request({
            ...endpoint.request(),
            as: { apiKey: "vak_unknown", secretKey: business.secretKey },
          });
          assertFail(response, 401, "Invalid API key");
        });

        for (const status of ["inactive", "revoked"] as const) {
          test(`an ${status} API key is 401 Invalid API key`, async () => {
            const other = await h.createBusiness();
            await h.services.businesses.setKeyStatus(other.apiKey, status);
            assertFail(await h.request({ ...endpoint.request(), as: other }), 401, "Invalid API key");
          });
        }

        test("a re-activated key works again", async () => {
          const other = await h.createBusiness();
          await h.services.businesses.setKeyStatus(other.apiKey, "inactive");
          await h.services.businesses.setKeyStatus(other.apiKey, "active");
          const response = await h.request({ ...endpoint.request(), as: other });
          assert.ok(response.statusCode < 300, response.body);
        });

        for (const status of ["in_progress", "rejected", "not_submitted"] as const) {
          test(`a business ${status} is 401 Business not verified`, async () => {
            const other = await h.createBusiness({ status });
            assertFail(await h.request({ ...endpoint.request(), as: other }), 401, "Business not verified");
          });
        }

        test("the key is checked before the business status", async () => {
          const other = await h.createBusiness({ status: "rejected" });
          await h.services.businesses.setKeyStatus(other.apiKey, "revoked");
          assertFail(await h.request({ ...endpoint.request(), as: other }), 401, "Invalid API key");
        });

        test("the business status is checked before the timestamp", async () => {
          const other = await h.createBusiness({ status: "in_progress" });
          const stale = Date.now() - 10 * 60_000;
          assertFail(
            await h.request({ ...endpoint.request(), as: other, timestamp: stale }),
            401,
            "Business not verified",
          );
        });

        for (const [label, offset] of [
          ["more than 5 minutes old", -5 * 60_000 - 2_000],
          ["more than 5 minutes ahead", 5 * 60_000 + 2_000],
        ] as const) {
          test(`a timestamp ${label} is 401 Request timestamp expired`, async () => {
            const response = await h.request({
              ...endpoint.request(),
              as: business,
              timestamp: Date.now() + offset,
            });
            assertFail(response, 401, "Request timestamp expired");
          });
        }

        test("a timestamp just inside 5 minutes either side is accepted", async () => {
          for (const offset of [-5 * 60_000 + 5_000, 5 * 60_000 - 5_000]) {
            const response = await h.request({
              ...endpoint.request(),
              as: business,
              timestamp: Date.now() + offset,
            });
            assert.ok(response.statusCode < 300, response.body);
          }
        });

        test("a timestamp in seconds is expired, as the specification says, with a hint to send milliseconds", async () => {
          const seconds = Math.floor(Date.now() / 1000);
          const response = await h.request({ ...endpoint.request(), as: business, timestamp: seconds });
          assertFail(response, 401, "Request timestamp expired");
          assert.match(response.json().error.hint, /looks like Unix time in seconds: send milliseconds/);
          const stale = await h.request({
            ...endpoint.request(),
            as: business,
            timestamp: Date.now() - 600_000,
          });
          assert.equal(stale.json().error.hint, undefined, "a stale timestamp in milliseconds gets no hint");
        });

        for (const bad of ["abc", "1.7e12", "-1700000000000", "1700000000000.5", "0x1A"]) {
          test(`a non-integer timestamp ${JSON.stringify(bad)} is a 401 fail`, async () => {
            const response = await h.request({ ...endpoint.request(), as: business, timestamp: bad });
            assert.equal(response.statusCode, 401);
            const body = response.json();
            assert.equal(body.status, "fail");
            assert.equal(body.error.code, "INVALID_TIMESTAMP");
            assert.match(body.message, /x-timestamp/);
          });
        }

        test("the timestamp is checked before the signature", async () => {
          const stale = Date.now() - 10 * 60_000;
          const response = await h.request({
            ...endpoint.request(),
            as: business,
            timestamp: stale,
            signature: "0".repeat(64),
          });
          assertFail(response, 401, "Request timestamp expired");
        });

        test("a wrong signature is 401 Invalid signature", async () => {
          const response = await h.request({
            ...endpoint.request(),
            as: business,
            signature: "a".repeat(64),
          });
          assertFail(response, 401, "Invalid signature");
        });

        test("a signature that is not hex is 401 Invalid signature", async () => {
          for (const signature of ["not-a-signature", "z".repeat(64), "ab"]) {
            assertFail(
              await h.request({ ...endpoint.request(), as: business, signature }),
              401,
              "Invalid signature",
            );
          }
        });

        test("a signature made with another business's secret is rejected", async () => {
          const other = await h.createBusiness();
          const response = await h.request({
            ...endpoint.request(),
            as: { apiKey: business.apiKey, secretKey: other.secretKey },
          });
          assertFail(response, 401, "Invalid signature");
        });

        test("upper-case hex signatures are accepted", async () => {
          const timestamp = Date.now();
          const request = endpoint.request();
          const payload = request.body === undefined ? "{}" : JSON.stringify(request.body);
          const signature = sign(business.secretKey, payload, timestamp).toUpperCase();
          const response = await h.request({ ...request, as: business, timestamp, signature });
          assert.ok(response.statusCode < 300, response.body);
        });

        test("a signature over another timestamp is rejected", async () => {
          const request = endpoint.request();
          const payload = request.body === undefined ? "{}" : JSON.stringify(request.body);
          const signature = sign(business.secretKey, payload, Date.now() - 1);
          assertFail(await h.request({ ...request, as: business, signature }), 401, "Invalid signature");
        });
      });
    }

    describe("authentication: what the signature covers", () => {
      test("any change to the body invalidates the signature", async () => {
        const body = customer();
        const response = await h.request({
          url: `${API}/account/generate`,
          body: { ...body, name: "Mallory" },
          signedPayload: JSON.stringify(body),
          as: business,
        });
        assertFail(response, 401, "Invalid signature");
      });

      test("a signature over the exact raw bytes is accepted (pretty-printed JSON)", async () => {
        const raw = JSON.stringify(customer(), null, 2);
        const response = await h.request({ url: `${API}/account/generate`, body: raw, as: business });
        assert.equal(response.statusCode, 201, response.body);
      });

      test("a signature over the compact re-serialisation is accepted when the client reformatted the body", async () => {
        const body = customer();
        const response = await h.request({
          url: `${API}/account/generate`,
          body: JSON.stringify(body, null, 4),
          signedPayload: JSON.stringify(body),
          as: business,
        });
        assert.equal(response.statusCode, 201, response.body);
      });

      test('the list may be signed over "{}" or over the empty string', async () => {
        for (const signedPayload of ["{}", ""]) {
          const response = await h.request({ url: `${API}/account/list`, signedPayload, as: business });
          assert.equal(response.statusCode, 200, response.body);
        }
      });

      test("the query string is not part of the signature input", async () => {
        const response = await h.request({ url: `${API}/account/list?page=2&limit=5`, as: business });
        assert.equal(response.statusCode, 200, response.body);
      });

      test("authentication comes before body validation: an unsigned bad body learns nothing", async () => {
        const anonymous = { apiKey: "vak_nobody", secretKey: "x" };
        for (const body of ["{not json", "[]", JSON.stringify({ email: "x" })]) {
          assertFail(
            await h.request({ url: `${API}/account/generate`, body, as: anonymous }),
            401,
            "Invalid API key",
          );
          assertFail(
            await h.request({
              url: `${API}/account/generate`,
              body,
              as: business,
              signature: "b".repeat(64),
            }),
            401,
            "Invalid signature",
          );
        }
        const wrongType = await h.request({
          url: `${API}/account/generate`,
          body: JSON.stringify(customer()),
          as: business,
          signature: "c".repeat(64),
          headers: { "content-type": "text/plain" },
        });
        assertFail(wrongType, 401, "Invalid signature");
      });

      test("one business never sees another's accounts", async () => {
        const mine = await h.createBusiness();
        const theirs = await h.createBusiness();
        const created = await h.request({
          url: `${API}/account/generate`,
          body: customer({ email: "shared@example.com" }),
          as: theirs,
        });
        assert.equal(created.statusCode, 201);
        const list = await h.request({ url: `${API}/account/list?limit=100`, as: mine });
        assert.equal(list.json().pagination.total, 0);
        assert.deepEqual(list.json().data, []);
        const again = await h.request({
          url: `${API}/account/generate`,
          body: customer({ email: "shared@example.com" }),
          as: mine,
        });
        assert.equal(again.statusCode, 201, "the same email at another business is a new account");
      });
    });
  });
}
