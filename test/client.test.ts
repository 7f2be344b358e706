import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { runCli } from "../src/cli/run.js";
import { createClient, VasApiError, type VasClient } from "../src/client/index.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// The SDK against a real server on a real port.

for (const dialect of DIALECTS) {
  describe(`client SDK on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let baseUrl: string;
    let client: VasClient;

    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Sdk Stores" });
      await h.app.listen({ port: 0, host: "127.0.0.1" });
      baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
      client = createClient({
        baseUrl,
        apiKey: business.apiKey,
        secretKey: business.secretKey,
        retryDelayMs: 10,
      });
    });
    after(() => h.close());

    test("generateAccount, generateTemporaryAccount and listAccounts", async () => {
      const permanent = await client.generateAccount({
        name: "Ada Obi",
        email: "ada@example.com",
        bvn: "22345678901",
      });
      assert.equal(permanent.accountName, "Sdk Stores/Ada Obi");
      assert.match(permanent.accountNumber, /^\d{10}$/);
      const temporary = await client.generateTemporaryAccount({
        name: "Bola",
        email: "bola@example.com",
        nin: "12345678901",
        duration: 15,
      });
      assert.equal(temporary.isTemporary, true);
      assert.equal(temporary.expiresInMinutes, 15);
      const page = await client.listAccounts({ page: 1, limit: 1 });
      assert.equal(page.data[0]?.accountNumber, temporary.accountNumber);
      assert.equal(page.pagination.total, 2);
      assert.equal(page.pagination.pages, 2);
    });

    test("the iterator walks every account across several pages, newest first", async () => {
      const other = await h.createBusiness();
      const otherClient = createClient({ baseUrl, apiKey: other.apiKey, secretKey: other.secretKey });
      const created: string[] = [];
      for (let i = 0; i < 7; i++) {
        created.push(
          (await otherClient.generateTemporaryAccount(customer() as { name: string; email: string }))
            .accountNumber,
        );
      }
      const seen: string[] = [];
      for await (const account of otherClient.accounts({ limit: 3 })) seen.push(account.accountNumber);
      assert.deepEqual(seen, created.reverse());
    });

    test("typed errors carry status, code and message for each 4xx", async () => {
      const cases: Array<[() => Promise<unknown>, number, string]> = [
        [
          () => client.generateAccount({ name: "", email: "a@example.com", bvn: "22345678901" }),
          400,
          "VALIDATION_FAILED",
        ],
        [
          () => client.generateAccount({ name: "Ada", email: "a@example.com", bvn: "00000000001" }),
          400,
          "PROVIDER_REJECTED",
        ],
        [() => client.listAccounts({ limit: 500 }), 400, "VALIDATION_FAILED"],
        [
          () => createClient({ baseUrl, apiKey: "vak_nope", secretKey: "x" }).listAccounts(),
          401,
          "INVALID_API_KEY",
        ],
        [
          () => createClient({ baseUrl, apiKey: business.apiKey, secretKey: "wrong" }).listAccounts(),
          401,
          "INVALID_SIGNATURE",
        ],
      ];
      for (const [call, status, code] of cases) {
        const error = await call().then(
          () => assert.fail("expected a VasApiError"),
          (e: unknown) => e,
        );
        assert.ok(error instanceof VasApiError, String(error));
        assert.equal(error.status, status);
        assert.equal(error.code, code);
        assert.ok(error.message.length > 0);
        assert.match(String(error.requestId), /^[0-9a-f-]{36}$/);
      }
      const reused = await client.generateAccount(customer() as never, { idempotencyKey: "sdk-reuse" });
      assert.ok(reused.accountNumber);
      const mismatch = await client
        .generateAccount(customer() as never, { idempotencyKey: "sdk-reuse" })
        .catch((e: unknown) => e);
      assert.ok(mismatch instanceof VasApiError);
      assert.equal(mismatch.status, 422);
      assert.equal(mismatch.code, "IDEMPOTENCY_KEY_REUSED");
    });

    test("a POST whose answer is lost on the network is retried with the same key and creates one account", async () => {
      let calls = 0;
      const idempotencyKeys: string[] = [];
      const flaky: typeof fetch = async (input, init) => {
        calls++;
        idempotencyKeys.push(new Headers(init?.headers).get("idempotency-key") ?? "");
        const response = await fetch(input, init);
        if (calls === 1) {
          await response.arrayBuffer();
          throw new TypeError("fetch failed: socket hang up"); // the server did the work; the client never heard
        }
        return response;
      };
      const retrying = createClient({
        baseUrl,
        apiKey: business.apiKey,
        secretKey: business.secretKey,
        fetch: flaky,
        retryDelayMs: 5,
      });
      const body = customer() as { name: string; email: string; bvn: string };
      const account = await retrying.generateAccount(body);
      assert.equal(calls, 2);
      assert.equal(idempotencyKeys[0], idempotencyKeys[1], "the retry carried the same Idempotency-Key");
      assert.match(idempotencyKeys[0] ?? "", /^[0-9a-f-]{36}$/);
      const rows = await h.storage.db
        .selectFrom("accounts")
        .selectAll()
        .where("email", "=", body.email)
        .execute();
      assert.equal(rows.length, 1, "one account, not two");
      assert.equal(rows[0]?.account_number, account.accountNumber);
      assert.equal(rows[0]?.version, 1, "issued once: the retry got the stored answer");
    });

    test("429 is retried after Retry-After; a network failure with nothing listening is a NETWORK_ERROR", async () => {
      let calls = 0;
      const limited: typeof fetch = async (input, init) => {
        calls++;
        if (calls === 1) {
          return new Response(
            JSON.stringify({ status: "fail", message: "slow down", error: { code: "RATE_LIMITED" } }),
            {
              status: 429,
              headers: { "retry-after": "0", "content-type": "application/json" },
            },
          );
        }
        return fetch(input, init);
      };
      const patient = createClient({
        baseUrl,
        apiKey: business.apiKey,
        secretKey: business.secretKey,
        fetch: limited,
      });
      assert.ok((await patient.listAccounts()).pagination.total >= 1);
      assert.equal(calls, 2);

      const nowhere = createClient({
        baseUrl: "http://127.0.0.1:1",
        apiKey: business.apiKey,
        secretKey: business.secretKey,
        maxRetries: 1,
        retryDelayMs: 1,
      });
      const error = await nowhere.listAccounts().catch((e: unknown) => e);
      assert.ok(error instanceof VasApiError);
      assert.equal(error.status, 0);
      assert.equal(error.code, "NETWORK_ERROR");
    });

    test("vas request signs and sends one request and prints the answer", async () => {
      let stdout = "";
      let stderr = "";
      const io = {
        env: { VAS_API_KEY: business.apiKey, VAS_SECRET_KEY: business.secretKey, VAS_BASE_URL: baseUrl },
        stdout: (text: string) => {
          stdout += text;
        },
        stderr: (text: string) => {
          stderr += text;
        },
      };
      const body = JSON.stringify({ name: "Cli Caller", email: "cli@example.com", bvn: "22345678901" });
      assert.equal(await runCli(["request", "POST", "/account/generate", "--data", body], io), 0, stderr);
      assert.match(stdout, /^HTTP 201\n/);
      assert.equal(
        JSON.parse(stdout.slice(stdout.indexOf("\n") + 1)).data.accountName,
        "Sdk Stores/Cli Caller",
      );
      stdout = "";
      assert.equal(await runCli(["request", "GET", "/api/v1/external/account/list?limit=1"], io), 0, stderr);
      assert.match(stdout, /^HTTP 200\n/);
      stdout = "";
      assert.equal(await runCli(["request", "GET", "/account/list?limit=1", "--secret-key", "wrong"], io), 1);
      assert.match(stdout, /^HTTP 401\n[\s\S]*Invalid signature/);
      assert.equal(await runCli(["request", "GET"], io), 2, "missing path is a usage error");
      assert.equal(await runCli(["request", "POST", "/account/generate", "--data", "{nope"], io), 2);
    });

    // The specification's {base_url} ends in /api/v1/external; the service's address does not.
    const baseUrlForms = (root: string) => [
      root,
      `${root}/`,
      `${root}/api/v1/external`,
      `${root}/api/v1/external/`,
    ];

    test("the SDK accepts the base URL with or without /api/v1/external and a trailing slash", async () => {
      for (const form of baseUrlForms(baseUrl)) {
        const each = createClient({ baseUrl: form, apiKey: business.apiKey, secretKey: business.secretKey });
        const created = await each.generateTemporaryAccount({
          name: "Base Url",
          email: "base@example.com",
          nin: "12345678901",
        });
        const page = await each.listAccounts({ limit: 1 });
        assert.equal(page.data[0]?.accountNumber, created.accountNumber, form);
        const raw = await each.request("GET", "/account/list?limit=1");
        assert.equal(raw.status, 200, form);
      }
      for (const bad of ["127.0.0.1:3000", "localhost:3000", "ftp://vas.example.com", ""]) {
        assert.throws(
          () => createClient({ baseUrl: bad, apiKey: business.apiKey, secretKey: business.secretKey }),
          (error: unknown) =>
            error instanceof TypeError &&
            error.message.includes("http:// or https://") &&
            error.message.includes(`"${bad}"`),
          bad,
        );
      }
    });

    test("vas request accepts either form of --base-url and VAS_BASE_URL", async () => {
      const run = async (args: string[], env: Record<string, string> = {}) => {
        let stdout = "";
        let stderr = "";
        const code = await runCli(["request", ...args], {
          env: { VAS_API_KEY: business.apiKey, VAS_SECRET_KEY: business.secretKey, ...env },
          stdout: (text) => {
            stdout += text;
          },
          stderr: (text) => {
            stderr += text;
          },
        });
        return { code, stdout, stderr };
      };
      for (const form of baseUrlForms(baseUrl)) {
        for (const path of ["/account/list?limit=1", "/api/v1/external/account/list?limit=1"]) {
          const flag = await run(["GET", path, "--base-url", form]);
          assert.equal(flag.code, 0, `--base-url ${form} ${path}: ${flag.stdout}${flag.stderr}`);
          assert.match(flag.stdout, /^HTTP 200\n/);
          const env = await run(["GET", path], { VAS_BASE_URL: form });
          assert.equal(env.code, 0, `VAS_BASE_URL=${form} ${path}: ${env.stdout}${env.stderr}`);
        }
      }
      const bad = await run(["GET", "/account/list", "--base-url", "localhost:3000"]);
      assert.equal(bad.code, 2, "a base URL that is not http(s) is a usage error");
      assert.match(
        bad.stderr,
        /--base-url \(or VAS_BASE_URL\) must be an http:\/\/ or https:\/\/ URL, not "localhost:3000"/,
      );
      assert.equal(bad.stdout, "");
    });
  });
}
