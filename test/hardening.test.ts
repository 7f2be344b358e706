import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { MAX_QUERY_PARAMETERS } from "../src/http/front-door.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

/** Sends raw bytes on a fresh connection and collects everything until the server closes it. */
function rawExchange(port: number, chunks: string[], { halfClose = false } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => {
      received += data.toString();
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
    socket.on("connect", () => {
      for (const chunk of chunks) socket.write(chunk);
      if (halfClose) socket.end();
    });
  });
}

const failEnvelope = (response: string) => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));

for (const dialect of DIALECTS) {
  describe(`input hardening on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let port: number;

    before(async () => {
      h = await createHarness({ dialect, env: { REQUEST_TIMEOUT_MS: "1000" } });
      business = await h.createBusiness();
      await h.app.listen({ port: 0, host: "127.0.0.1" });
      port = (h.app.server.address() as net.AddressInfo).port;
    });
    after(() => h.close());

    test(`more than ${MAX_QUERY_PARAMETERS} query parameters is a 400`, async () => {
      const query = Array.from({ length: MAX_QUERY_PARAMETERS + 1 }, (_, i) => `p${i}=1`).join("&");
      const response = await h.request({ url: `${API}/account/list?${query}`, as: business });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().status, "fail");
      const fine = await h.request({ url: `${API}/account/list?page=1&limit=5`, as: business });
      assert.equal(fine.statusCode, 200);
    });

    test("headers over the size limit are a 431 in the fail envelope", async () => {
      const response = await rawExchange(port, [
        `GET ${API}/account/list HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      ]);
      assert.match(response, /^HTTP\/1\.1 431 /);
      assert.equal(failEnvelope(response).status, "fail");
    });

    test("malformed HTTP is a 400 in the fail envelope", async () => {
      const response = await rawExchange(port, ["NOT-HTTP \x00\x01\r\n\r\n"]);
      assert.match(response, /^HTTP\/1\.1 400 /);
      assert.equal(failEnvelope(response).status, "fail");
    });

    // Time limits on these two are bounds, not measurements: a server that never cuts the
    // connection must fail the test, not hang the suite.
    test("a slow client that never finishes its request is cut off (request timeout)", {
      timeout: 15_000,
    }, async () => {
      const response = await rawExchange(port, [`POST ${API}/account/generate HTTP/1.1\r\nHost: x\r\n`]);
      assert.ok(response === "" || /^HTTP\/1\.1 408 /.test(response), JSON.stringify(response));
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(health.status, 200, "and the server carries on");
    });

    test("half-closed connections, mid-request or after it, leave the server unharmed", {
      timeout: 15_000,
    }, async () => {
      const midRequest = await rawExchange(
        port,
        [`POST ${API}/account/generate HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"na`],
        {
          halfClose: true,
        },
      );
      assert.doesNotMatch(midRequest, /^HTTP\/1\.1 (2|5)\d\d /, "nothing ran and nothing failed");
      const afterRequest = await rawExchange(port, ["GET /health HTTP/1.1\r\nHost: x\r\n\r\n"], {
        halfClose: true,
      });
      // Node treats a half-close as the client going away: the answer may or may not be sent.
      assert.ok(afterRequest === "" || /^HTTP\/1\.1 200 /.test(afterRequest), JSON.stringify(afterRequest));
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(health.status, 200);
    });
  });
}
