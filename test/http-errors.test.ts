import assert from "node:assert/strict";
import net from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { sign } from "../src/auth/signature.js";
import type { AccountProvider } from "../src/providers/account-provider.js";
import { assertFailCode as assertFail } from "./helpers/assertions.js";
import { bankWith } from "./helpers/banks.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  BODY_LIMIT,
  createHarness,
  customer,
  type Harness,
  type TestBusiness,
} from "./helpers/harness.js";

const URL = `${API}/account/generate`;

let h: Harness;
let business: TestBusiness;

for (const dialect of DIALECTS) {
  describe(`on ${dialect}`, () => {
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
    });
    after(() => h.close());

    describe("request bodies (authenticated callers)", () => {
      test("malformed JSON is a 400 INVALID_JSON", async () => {
        for (const body of ['{"name":', "{'name':'x'}", "nul", '{"a":1}{"b":2}']) {
          const response = await h.request({ url: URL, body, as: business });
          assertFail(response, 400, "INVALID_JSON");
          assert.equal(response.json().message, "Request body is not valid JSON");
        }
      });

      test("a body that is not a JSON object is a 400", async () => {
        for (const body of ["[]", "null", "42", '"text"', "true"]) {
          const response = await h.request({ url: URL, body, as: business });
          assertFail(response, 400, "INVALID_JSON");
          assert.equal(response.json().message, "Request body must be a JSON object");
        }
      });

      test("__proto__ and constructor.prototype keys are refused and Object.prototype stays clean", async () => {
        for (const body of [
          '{"name":"a","__proto__":{"polluted":1}}',
          '{"name":"a","constructor":{"prototype":{"polluted":1}}}',
        ]) {
          const response = await h.request({ url: URL, body, as: business });
          assertFail(response, 400, "INVALID_JSON");
          assert.match(response.json().message, /__proto__/);
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      });

      test("invalid UTF-8 is a 400", async () => {
        const timestamp = String(Date.now());
        const raw = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
        const response = await h.app.inject({
          method: "POST",
          url: URL,
          payload: raw,
          headers: {
            "content-type": "application/json",
            "x-api-key": business.apiKey,
            "x-timestamp": timestamp,
            "x-signature": sign(business.secretKey, raw, timestamp),
          },
        });
        assertFail(response, 400, "INVALID_JSON");
        assert.equal(response.json().message, "Request body is not valid UTF-8");
      });

      test("a wrong Content-Type is a 415", async () => {
        for (const type of [
          "text/plain",
          "application/x-www-form-urlencoded",
          "application/json; charset=latin1",
        ]) {
          const response = await h.request({
            url: URL,
            body: customer(),
            as: business,
            headers: { "content-type": type },
          });
          assertFail(response, 415, "UNSUPPORTED_MEDIA_TYPE");
        }
      });

      test("a missing Content-Type on a body is a 415", async () => {
        const response = await h.request({
          url: URL,
          body: customer(),
          as: business,
          headers: { "content-type": undefined },
        });
        assertFail(response, 415, "UNSUPPORTED_MEDIA_TYPE");
      });

      test("application/json with charset=utf-8 is accepted", async () => {
        const response = await h.request({
          url: URL,
          body: customer(),
          as: business,
          headers: { "content-type": "application/json; charset=UTF-8" },
        });
        assert.equal(response.statusCode, 201, response.body);
      });

      test("a body over the limit is a 413, whoever sends it", async () => {
        const body = JSON.stringify(customer({ name: "x".repeat(BODY_LIMIT) }));
        for (const as of [business, { apiKey: "vak_nobody", secretKey: "x" }]) {
          assertFail(await h.request({ url: URL, body, as }), 413, "PAYLOAD_TOO_LARGE");
        }
      });
    });

    describe("routing", () => {
      test("unknown routes are a 404 in the fail envelope, without authentication", async () => {
        for (const url of [
          "/nope",
          `${API}/account/nope/more`,
          `${API}/nope`,
          "/api/v2/external/account/list",
        ]) {
          const response = await h.app.inject({ method: "GET", url });
          assertFail(response, 404, "NOT_FOUND");
        }
      });

      test("a path that cannot be decoded is a 400 in the fail envelope", async () => {
        const response = await h.app.inject({ method: "GET", url: "/api/v1/external/account/%zz" });
        assertFail(response, 400, "BAD_REQUEST");
        assert.ok(response.headers["x-request-id"]);
      });

      test("a path that cannot be decoded gets its 'request completed' log line, without headers or query", async () => {
        const lines: string[] = [];
        const logStream = new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        });
        const other = await createHarness({ dialect, logStream });
        try {
          const path = `${API}/account/%zz${"a".repeat(5_000)}`;
          const response = await other.app.inject({
            method: "GET",
            url: `${path}?token=query-secret`,
            headers: { "x-api-key": "vak_header-secret", "x-signature": "signature-secret" },
          });
          assertFail(response, 400, "BAD_REQUEST");
          const requestId = response.headers["x-request-id"];
          const completed = lines
            .map((line) => JSON.parse(line))
            .filter((entry) => entry.msg === "request completed");
          assert.equal(completed.length, 1, lines.join(""));
          const [entry] = completed;
          assert.equal(entry.reqId, requestId);
          assert.equal(entry.method, "GET");
          assert.equal(entry.statusCode, 400);
          assert.equal(entry.url, path.slice(0, 200), "the path, truncated, without its query");
          assert.ok(Number.isFinite(entry.durationMs) && entry.durationMs >= 0, String(entry.durationMs));
          const logged = lines.join("");
          for (const secret of ["query-secret", "vak_header-secret", "signature-secret"]) {
            assert.ok(!logged.includes(secret), `${secret} is not logged`);
          }
        } finally {
          await other.close();
        }
      });

      test("a known path with another method is a 404 fail", async () => {
        const response = await h.app.inject({ method: "DELETE", url: `${API}/account/list` });
        assertFail(response, 404, "NOT_FOUND");
      });

      test("every response carries a request id; a well-formed inbound one is reused", async () => {
        const fresh = await h.request({ url: `${API}/account/list`, as: business });
        assert.match(String(fresh.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
        const reused = await h.request({
          url: `${API}/account/list`,
          as: business,
          headers: { "x-request-id": "lb-1234" },
        });
        assert.equal(reused.headers["x-request-id"], "lb-1234");
        const refused = await h.request({
          url: `${API}/account/list`,
          as: business,
          headers: { "x-request-id": "bad id\twith spaces" },
        });
        assert.notEqual(refused.headers["x-request-id"], "bad id\twith spaces");
      });

      test("GET /health answers without authentication", async () => {
        const response = await h.app.inject({ method: "GET", url: "/health" });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { status: "success", data: { status: "ok", database: "ok" } });
      });
    });

    describe("failures behind the API", () => {
      test("a provider that throws something unexpected is a 502 and nothing is written", async () => {
        const other = await createHarness({
          dialect,
          provider: ({ embedded }) =>
            bankWith(embedded, async () => {
              throw new Error("socket hang up");
            }),
        });
        try {
          const caller = await other.createBusiness();
          const response = await other.request({ url: URL, body: customer(), as: caller });
          assertFail(response, 502, "PROVIDER_UNAVAILABLE");
          const count = await other.storage.db
            .selectFrom("accounts")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirst();
          assert.equal(Number(count?.n), 0);
        } finally {
          await other.close();
        }
      });

      test("an unexpected failure is a 500 with a generic error string and request id; details only in the log", async () => {
        // A provider that hands out the same number twice breaks an invariant the database enforces.
        const duplicate = (embedded: AccountProvider) =>
          bankWith(embedded, async (request) => ({
            accountNumber: "0000014579",
            accountName: request.virtualAccountName,
            accountReference: request.accountReference,
          }));
        const lines: string[] = [];
        const logStream = new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        });
        const other = await createHarness({
          dialect,
          provider: ({ embedded }) => duplicate(embedded),
          logStream,
        });
        try {
          const caller = await other.createBusiness();
          const first = await other.request({ url: URL, body: customer(), as: caller });
          assert.equal(first.statusCode, 201);
          const second = await other.request({ url: URL, body: customer(), as: caller });
          assert.equal(second.statusCode, 500);
          const body = second.json();
          assert.deepEqual(Object.keys(body).sort(), ["error", "requestId", "status"]);
          assert.equal(body.status, "fail");
          assert.equal(typeof body.error, "string");
          assert.ok(body.error.includes(body.requestId));
          assert.doesNotMatch(second.body, /SQLITE|constraint|stack/i, "no internals leak");
          const logged = lines
            .map((line) => JSON.parse(line))
            .find((entry) => entry.reqId === body.requestId && entry.level === 50);
          assert.ok(logged, "the failure is logged with the request id");
          assert.match(JSON.stringify(logged.err), /UNIQUE|constraint/i);
          const accounts = await other.storage.db.selectFrom("accounts").select("id").execute();
          assert.equal(accounts.length, 1, "the failed request left nothing behind");
        } finally {
          await other.close();
        }
      });
    });
  });
}

describe("slow clients (as docs/api.md describes them)", () => {
  test("a request still trickling in after REQUEST_TIMEOUT_MS is answered 400 in the fail envelope, then closed", {
    timeout: 15_000,
  }, async () => {
    const slow = await createHarness({ env: { REQUEST_TIMEOUT_MS: "1000" } });
    try {
      await slow.app.listen({ port: 0, host: "127.0.0.1" });
      const { port } = slow.app.server.address() as net.AddressInfo;
      const started = Date.now();
      const received = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1");
        let text = "";
        // A header line every 200 ms: never idle, never finished.
        const drip = setInterval(() => socket.write("X-Slow: 1\r\n"), 200);
        socket.on("data", (data) => {
          text += data.toString();
        });
        socket.on("close", () => {
          clearInterval(drip);
          resolve(text);
        });
        socket.on("error", (error) => {
          clearInterval(drip);
          reject(error);
        });
        socket.on("connect", () => socket.write(`POST ${URL} HTTP/1.1\r\nHost: x\r\n`));
      });
      const elapsed = Date.now() - started;
      assert.match(received, /^HTTP\/1\.1 400 /);
      assert.match(received, /\r\nConnection: close\r\n/i);
      assert.deepEqual(JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4)), {
        status: "fail",
        message: "Malformed HTTP request",
        error: { statusCode: 400, name: "AppError", code: "BAD_REQUEST" },
      });
      assert.ok(elapsed >= 1_000 && elapsed < 5_000, `answered after ${elapsed} ms`);
    } finally {
      await slow.close();
    }
  });
});
