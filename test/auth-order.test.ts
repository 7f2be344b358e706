import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_JSON_DEPTH } from "../src/http/request-body.js";
import { assertFailCode, assertFailMessage } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// Authentication comes before anything is judged about the body, and nothing about the body,
// however hostile, can turn into a 500.

const GENERATE = `${API}/account/generate`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

for (const dialect of DIALECTS) {
  describe(`the order of checks on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      // The largest body limit an operator can set, so that bodies can nest as deeply as they like.
      h = await createHarness({ dialect, env: { BODY_LIMIT_BYTES: "1048576" } });
      business = await h.createBusiness();
    });
    after(() => h.close());

    for (const [name, body] of [
      ["an object nested 8,000 levels", deepObject(8_000)],
      ["an array nested 100,000 levels", deepArray(100_000)],
      ["an unterminated object nested 100,000 levels", deepObject(100_000).slice(0, 500_000)],
    ] as const) {
      test(`${name}, with no auth headers: 401, never 500`, async () => {
        const response = await h.app.inject({
          method: "POST",
          url: GENERATE,
          headers: { "content-type": "application/json" },
          payload: body,
        });
        assertFailMessage(response, 401, "Missing required header: x-api-key");
      });

      test(`${name}, signed: 400 INVALID_JSON`, async () => {
        const response = await h.request({ url: GENERATE, body, as: business });
        assertFailCode(response, 400, "INVALID_JSON");
        assert.match(response.json().message, /more than 32 levels deep/);
      });
    }

    test(`a body nested exactly ${MAX_JSON_DEPTH} levels is judged on its fields`, async () => {
      const body = JSON.stringify({ ...customer(), extra: JSON.parse(deepArray(MAX_JSON_DEPTH - 1)) });
      assert.equal((await h.request({ url: GENERATE, body, as: business })).statusCode, 201);
      const deeper = JSON.stringify({ ...customer(), extra: JSON.parse(deepArray(MAX_JSON_DEPTH)) });
      assertFailCode(await h.request({ url: GENERATE, body: deeper, as: business }), 400, "INVALID_JSON");
    });

    test("brackets inside strings do not count as nesting", async () => {
      const body = JSON.stringify(customer({ name: `Ada ${"[{".repeat(100)}` }));
      const response = await h.request({ url: GENERATE, body, as: business });
      assert.notEqual(response.json().error?.code, "INVALID_JSON", response.body);
    });

    for (const contentType of ["a/b/c", "/", ";", "\u00e9", "application/json/x"]) {
      test(`an unparsable Content-Type ${JSON.stringify(contentType)}: 401 unsigned, 415 signed`, async () => {
        const payload = JSON.stringify(customer());
        const unsigned = await h.app.inject({
          method: "POST",
          url: GENERATE,
          headers: { "content-type": contentType },
          payload,
        });
        assertFailMessage(unsigned, 401, "Missing required header: x-api-key");
        const signed = await h.request({
          url: GENERATE,
          body: payload,
          as: business,
          headers: { "content-type": contentType },
        });
        assertFailCode(signed, 415, "UNSUPPORTED_MEDIA_TYPE");
      });
    }
  });
}
