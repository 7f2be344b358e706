import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { runCli } from "../src/cli/run.js";
import { createClient, VasApiError } from "../src/client/index.js";

// What the SDK and `vas request` say when no answer comes: the URL called and the cause, not
// fetch's bare "fetch failed". No service is needed: nothing here gets as far as one.

const KEYS = { apiKey: "vak_network_test", secretKey: "vsk_network_test" };
// RFC 6761: `.invalid` never resolves, so the lookup fails whatever the network.
const UNRESOLVABLE = "http://vas-client-test.invalid";

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function failure(call: () => Promise<unknown>): Promise<VasApiError> {
  const error = await call().then(
    () => assert.fail("expected a VasApiError"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof VasApiError, String(error));
  assert.equal(error.status, 0);
  assert.equal(error.code, "NETWORK_ERROR");
  assert.ok(error.cause, "the original error is kept as the cause");
  return error;
}

async function vasRequest(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(["request", ...args], {
    env: { VAS_API_KEY: KEYS.apiKey, VAS_SECRET_KEY: KEYS.secretKey },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

describe("connection failures name the URL and the cause", () => {
  let refused: string;
  // Accepts connections and never answers.
  const silent = createServer((socket) => sockets.add(socket));
  const sockets = new Set<Socket>();
  let silentUrl: string;

  before(async () => {
    refused = `http://127.0.0.1:${await closedPort()}`;
    silentUrl = `http://127.0.0.1:${await listen(silent)}`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  test("SDK: connection refused, after every attempt", async () => {
    const client = createClient({ baseUrl: refused, ...KEYS, maxRetries: 1, retryDelayMs: 1 });
    const error = await failure(() => client.listAccounts({ limit: 5 }));
    assert.equal(
      error.message,
      `GET ${refused}/api/v1/external/account/list?limit=5 failed after 2 attempts: ` +
        "connection refused: nothing listens there (ECONNREFUSED)",
    );
  });

  test("SDK: credentials in the base URL (which fetch refuses) are refused at once, not repeated", () => {
    assert.throws(
      () => createClient({ baseUrl: refused.replace("http://", "http://gateway:hunter2@"), ...KEYS }),
      (error: unknown) =>
        error instanceof TypeError && error.message === "baseUrl must not contain a user name or password",
    );
  });

  test("SDK: a missing or blank key is refused at createClient, naming it, with no request sent", () => {
    // What `apiKey: process.env.VAS_API_KEY!` gives when the variable is not set: before, four
    // attempts and then a NETWORK_ERROR about a "key" argument.
    let requests = 0;
    const counting: typeof fetch = async () => {
      requests++;
      return new Response("{}");
    };
    const cases: Array<[Partial<typeof KEYS>, RegExp]> = [
      [
        { apiKey: KEYS.apiKey },
        /^secretKey is undefined: createClient needs the business's secret key \(vsk_…\)/,
      ],
      [
        { secretKey: KEYS.secretKey },
        /^apiKey is undefined: createClient needs the business's API key \(vak_…\)/,
      ],
      [{ apiKey: "", secretKey: KEYS.secretKey }, /^apiKey is empty: /],
      [{ apiKey: KEYS.apiKey, secretKey: "  " }, /^secretKey is empty: /],
    ];
    for (const [keys, message] of cases) {
      assert.throws(
        () => createClient({ baseUrl: refused, ...(keys as typeof KEYS), fetch: counting }),
        (error: unknown) => error instanceof TypeError && message.test(error.message),
      );
    }
    assert.throws(
      () => createClient({ baseUrl: refused, apiKey: KEYS.apiKey, secretKey: 42 as unknown as string }),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message.startsWith("secretKey is a number: ") &&
        !error.message.includes("42"),
    );
    assert.equal(requests, 0);
  });

  test("SDK: a host that does not resolve", async () => {
    const client = createClient({ baseUrl: UNRESOLVABLE, ...KEYS, maxRetries: 0 });
    const error = await failure(() =>
      client.generateAccount({ name: "Ada", email: "ada@example.com", bvn: "22345678901" }),
    );
    assert.ok(
      error.message.startsWith(`POST ${UNRESOLVABLE}/api/v1/external/account/generate failed: `),
      error.message,
    );
    assert.match(error.message, /\((ENOTFOUND|EAI_AGAIN)\)$/);
  });

  test("SDK: a server that accepts and never answers, after timeoutMs", async () => {
    const client = createClient({ baseUrl: silentUrl, ...KEYS, maxRetries: 0, timeoutMs: 150 });
    const started = Date.now();
    const error = await failure(() => client.listAccounts());
    assert.equal(
      error.message,
      `GET ${silentUrl}/api/v1/external/account/list failed: timed out: no answer within 150 ms (TimeoutError)`,
    );
    assert.ok(Date.now() - started < 5_000);
  });

  test("SDK: an abort of the caller's own signal is not reworded", async () => {
    const client = createClient({ baseUrl: silentUrl, ...KEYS, maxRetries: 2 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("caller gave up")), 50);
    await assert.rejects(client.listAccounts({}, { signal: controller.signal }), /caller gave up/);
  });

  test("vas request: connection refused, exit 1, the URL and the cause on stderr", async () => {
    const { code, stdout, stderr } = await vasRequest(["GET", "/account/list", "--base-url", refused]);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.equal(
      stderr,
      `vas request: GET ${refused}/api/v1/external/account/list failed: ` +
        "connection refused: nothing listens there (ECONNREFUSED)\n",
    );
  });

  test("vas request: a host that does not resolve, exit 1", async () => {
    const { code, stderr } = await vasRequest(["GET", "/account/list", "--base-url", UNRESOLVABLE]);
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^vas request: GET http:\/\/vas-client-test\.invalid\/api\/v1\/external\/account\/list failed: .*\((ENOTFOUND|EAI_AGAIN)\)\n$/,
    );
  });
});
