import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sign } from "../src/auth/signature.js";
import { openServices } from "../src/compose/services.js";
import type { AccountProvider } from "../src/providers/account-provider.js";
import { WrappedBank } from "./helpers/banks.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  appFor,
  createHarness,
  customer,
  type Harness,
  signedInject,
  type TestBusiness,
  testConfig,
} from "./helpers/harness.js";

const GENERATE = `${API}/account/generate`;
const TEMPORARY = `${API}/account/generate/temporary`;

/** The embedded bank, with a gate a test can close to hold requests in flight, or make fail. */
class GatedBank extends WrappedBank {
  calls = 0;
  failNext = false;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  close() {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }
  release() {
    this.open?.();
    this.gate = undefined;
  }
  override async createVirtualAccount(request: Parameters<AccountProvider["createVirtualAccount"]>[0]) {
    this.calls++;
    await this.gate;
    if (this.failNext) {
      this.failNext = false;
      throw new Error("upstream timeout");
    }
    return this.inner.createVirtualAccount(request);
  }
}

/** The exact same request bytes, headers and signature, sent again. */
function fixedRequest(as: TestBusiness, url: string, body: unknown, headers: Record<string, string> = {}) {
  const payload = JSON.stringify(body);
  const timestamp = String(Date.now());
  return {
    method: "POST" as const,
    url,
    payload,
    headers: {
      "content-type": "application/json",
      "x-api-key": as.apiKey,
      "x-timestamp": timestamp,
      "x-signature": sign(as.secretKey, payload, timestamp),
      ...headers,
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`on ${dialect}`, () => {
    let h: Harness;
    let bank: GatedBank;
    let business: TestBusiness;
    const masterKey = randomBytes(32);

    before(async () => {
      h = await createHarness({
        dialect,
        masterKey,
        provider: ({ embedded }: { embedded: AccountProvider }) => {
          bank = new GatedBank(embedded);
          return bank;
        },
      });
      business = await h.createBusiness();
    });
    after(() => h.close());

    const countAccounts = async (email: string) =>
      (await h.storage.db.selectFrom("accounts").select("id").where("email", "=", email).execute()).length;

    describe("replayed requests (same signature)", () => {
      test("a replayed POST is not executed again: it gets the first answer", async () => {
        const body = customer();
        const request = fixedRequest(business, GENERATE, body);
        const first = await h.app.inject(request);
        const calls = bank.calls;
        const second = await h.app.inject(request);
        assert.equal(first.statusCode, 201);
        assert.equal(second.statusCode, 201, "the stored status, not 200 for a re-issue");
        assert.equal(second.body, first.body);
        assert.equal(second.headers["idempotent-replayed"], "true");
        assert.equal(first.headers["idempotent-replayed"], undefined);
        assert.equal(bank.calls, calls, "the provider was not called again");
        assert.equal(await countAccounts(body.email as string), 1);
        const record = await h.storage.db
          .selectFrom("request_records")
          .selectAll()
          .where("kind", "=", "signature")
          .where("key", "like", `%:${String(request.headers["x-signature"])}`)
          .executeTakeFirstOrThrow();
        assert.equal(record.state, "done", "stored with the account, in the same transaction");
        assert.equal(record.status_code, 201);
        assert.equal(record.response, first.body);
      });

      test("a replay sent to another process is caught too", async () => {
        const other = await openServices(testConfig(h.database, masterKey));
        const otherApp = appFor(other);
        try {
          const body = customer();
          const request = fixedRequest(business, TEMPORARY, body);
          const first = await h.app.inject(request);
          const replay = await otherApp.inject(request);
          assert.equal(first.statusCode, 201);
          assert.equal(replay.statusCode, 201);
          assert.equal(replay.body, first.body);
          assert.equal(replay.headers["idempotent-replayed"], "true");
          assert.equal(await countAccounts(body.email as string), 1, "one temporary account, not two");
        } finally {
          await otherApp.close();
          await other.close();
        }
      });

      test("a replay while the first is still running gets 409", async () => {
        const request = fixedRequest(business, GENERATE, customer());
        const calls = bank.calls;
        bank.close();
        const first = h.app.inject(request);
        // The first request has claimed its signature once it reaches the (held) provider.
        while (bank.calls === calls) await new Promise((resolve) => setImmediate(resolve));
        const during = await h.app.inject(request);
        bank.release();
        assert.equal(during.statusCode, 409, during.body);
        assert.equal(during.json().error.code, "REQUEST_IN_PROGRESS");
        assert.equal((await first).statusCode, 201);
        const afterwards = await h.app.inject(request);
        assert.equal(afterwards.statusCode, 201, "after it finished, the replay gets the real result");
        assert.equal(afterwards.body, (await first).body);
      });

      test("a repeated GET is a harmless read and simply runs again", async () => {
        const timestamp = String(Date.now());
        const request = {
          method: "GET" as const,
          url: `${API}/account/list`,
          headers: {
            "x-api-key": business.apiKey,
            "x-timestamp": timestamp,
            "x-signature": sign(business.secretKey, "{}", timestamp),
          },
        };
        const first = await h.app.inject(request);
        await h.request({ url: GENERATE, body: customer(), as: business });
        const second = await h.app.inject(request);
        assert.equal(first.statusCode, 200);
        assert.equal(second.statusCode, 200);
        assert.equal(second.headers["idempotent-replayed"], undefined);
        assert.equal(second.json().pagination.total, first.json().pagination.total + 1, "it read afresh");
      });

      test("a replay of a request that failed with a 5xx runs again (nothing was written)", async () => {
        const body = customer();
        const request = fixedRequest(business, GENERATE, body);
        bank.failNext = true;
        const failed = await h.app.inject(request);
        assert.equal(failed.statusCode, 502);
        const retried = await h.app.inject(request);
        assert.equal(retried.statusCode, 201, retried.body);
        assert.equal(await countAccounts(body.email as string), 1);
      });
    });

    describe("Idempotency-Key", () => {
      const withKey = (key: string, url: string, body: unknown, as: TestBusiness = business) =>
        h.request({ url, body, as, headers: { "idempotency-key": key } });

      test("same key and same body, freshly signed: the stored answer, the provider not called again", async () => {
        const key = `order-${randomBytes(6).toString("hex")}`;
        const body = customer();
        const first = await withKey(key, GENERATE, body);
        const calls = bank.calls;
        const retry = await withKey(key, GENERATE, body);
        assert.equal(first.statusCode, 201);
        assert.equal(retry.statusCode, 201);
        assert.equal(retry.body, first.body);
        assert.equal(retry.headers["idempotent-replayed"], "true");
        assert.equal(bank.calls, calls);
        assert.equal(await countAccounts(body.email as string), 1);
      });

      test("a reformatted body with the same content counts as the same body", async () => {
        const key = `fmt-${randomBytes(6).toString("hex")}`;
        const body = customer();
        const first = await withKey(key, TEMPORARY, body);
        const retry = await withKey(key, TEMPORARY, JSON.stringify(body, null, 2));
        assert.equal(retry.statusCode, 201);
        assert.equal(retry.body, first.body);
      });

      test("same key with a different body, or on the other endpoint, is 422", async () => {
        const key = `reuse-${randomBytes(6).toString("hex")}`;
        const body = customer();
        assert.equal((await withKey(key, GENERATE, body)).statusCode, 201);
        const changed = await withKey(key, GENERATE, { ...body, name: "Someone Else" });
        assert.equal(changed.statusCode, 422, changed.body);
        assert.equal(changed.json().error.code, "IDEMPOTENCY_KEY_REUSED");
        const elsewhere = await withKey(key, TEMPORARY, body);
        assert.equal(elsewhere.statusCode, 422);
        assert.equal(await countAccounts(body.email as string), 1);
      });

      test("same key while the first is in flight is 409; afterwards the stored answer", async () => {
        const key = `flight-${randomBytes(6).toString("hex")}`;
        const body = customer();
        bank.close();
        const calls = bank.calls;
        const first = withKey(key, GENERATE, body);
        while (bank.calls === calls) await new Promise((resolve) => setImmediate(resolve));
        const during = await withKey(key, GENERATE, body);
        bank.release();
        assert.equal(during.statusCode, 409);
        assert.equal(during.json().error.code, "REQUEST_IN_PROGRESS");
        const done = await first;
        assert.equal(done.statusCode, 201);
        const afterwards = await withKey(key, GENERATE, body);
        assert.equal(afterwards.statusCode, 201);
        assert.equal(afterwards.body, done.body);
      });

      test("concurrent calls with one key execute once", async () => {
        const key = `burst-${randomBytes(6).toString("hex")}`;
        const body = customer();
        const responses = await Promise.all(Array.from({ length: 10 }, () => withKey(key, TEMPORARY, body)));
        const ok = responses.filter((r) => r.statusCode === 201);
        assert.ok(ok.length >= 1);
        assert.ok(responses.every((r) => r.statusCode === 201 || r.statusCode === 409));
        assert.equal(new Set(ok.map((r) => r.body)).size, 1, "every success is the same account");
        assert.equal(await countAccounts(body.email as string), 1);
      });

      test("keys are scoped to the business", async () => {
        const key = `shared-${randomBytes(6).toString("hex")}`;
        const other = await h.createBusiness();
        const mine = await withKey(key, TEMPORARY, customer());
        const theirs = await withKey(key, TEMPORARY, customer(), other);
        assert.equal(mine.statusCode, 201);
        assert.equal(theirs.statusCode, 201);
        assert.equal(theirs.headers["idempotent-replayed"], undefined);
      });

      test("a 4xx answer is stored like any other; a 5xx frees the key", async () => {
        const key = `bad-${randomBytes(6).toString("hex")}`;
        const invalid = await withKey(key, GENERATE, { name: "No Email" });
        const again = await withKey(key, GENERATE, { name: "No Email" });
        assert.equal(invalid.statusCode, 400);
        assert.equal(again.statusCode, 400);
        assert.equal(again.headers["idempotent-replayed"], "true");

        const retryKey = `retry-${randomBytes(6).toString("hex")}`;
        const body = customer();
        bank.failNext = true;
        assert.equal((await withKey(retryKey, GENERATE, body)).statusCode, 502);
        const retried = await withKey(retryKey, GENERATE, body);
        assert.equal(retried.statusCode, 201);
        assert.equal(retried.headers["idempotent-replayed"], undefined);
      });

      test("a malformed key is a 400", async () => {
        for (const key of ["", "x".repeat(256), "has space", "naïve"]) {
          const response = await signedInject(h.app, {
            url: GENERATE,
            body: customer(),
            as: business,
            headers: { "idempotency-key": key },
          });
          if (key === "") continue; // an empty header is dropped by the HTTP layer
          assert.equal(response.statusCode, 400, `${JSON.stringify(key)}: ${response.body}`);
          assert.equal(response.json().error.code, "INVALID_IDEMPOTENCY_KEY");
        }
      });
    });
  });
}
