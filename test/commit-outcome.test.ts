import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import SqliteDatabase from "better-sqlite3";
import type { LightMyRequestResponse } from "fastify";
import type { AccountProvider } from "../src/providers/account-provider.js";
import { CREATE_ON_POSTGRES_MARKER } from "../src/storage/postgres/account-batches.js";
import { assertFailCode } from "./helpers/assertions.js";
import { WrappedBank } from "./helpers/banks.js";
import { POSTGRES_AVAILABLE } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { PG_COMMIT, proxiedPostgres, type TcpProxy } from "./helpers/tcp-proxy.js";

// What happens to a request's replay record when the database fails at the worst moments.

const GENERATE = `${API}/account/generate`;

/** The embedded bank, with a hook that runs (and may break the database) before it answers. */
class HookedBank extends WrappedBank {
  before: (() => void | Promise<void>) | undefined;
  override async createVirtualAccount(request: Parameters<AccountProvider["createVirtualAccount"]>[0]) {
    const hook = this.before;
    this.before = undefined;
    if (hook) {
      await hook();
      throw new Error("upstream timeout");
    }
    return this.inner.createVirtualAccount(request);
  }
}

/**
 * Sends again as an integrator would while the answer says to retry: 503 (the database), or 409
 * REQUEST_IN_PROGRESS while the orphaned statement is still running at the server (it talks to
 * nobody, and under load may finish after the first retry). A bounded number of short waits.
 */
async function retried(send: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  let answer = await send();
  for (let attempt = 0; attempt < 60 && (answer.statusCode === 503 || answer.statusCode === 409); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    answer = await send();
  }
  return answer;
}

/** Waits (a bounded number of short polls) until the key's in-flight claim has been let go. */
async function freed(h: Harness, key: string): Promise<void> {
  for (let poll = 0; poll < 100; poll++) {
    const record = await h.storage.db
      .selectFrom("request_records")
      .select("locked_until")
      .where("kind", "=", "idempotency")
      .where("key", "=", key)
      .executeTakeFirst()
      .catch(() => undefined);
    if (record && record.locked_until <= new Date().toISOString()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`the claim on ${key} was never let go`);
}

const hooked =
  (set: (bank: HookedBank) => void) =>
  ({ embedded }: { embedded: AccountProvider }) => {
    const bank = new HookedBank(embedded);
    set(bank);
    return bank;
  };

describe("a lost connection at COMMIT (PostgreSQL)", {
  skip: !POSTGRES_AVAILABLE && "PostgreSQL is not answering",
}, () => {
  let pg: Awaited<ReturnType<typeof proxiedPostgres>>;
  let proxy: TcpProxy;
  let h: Harness;
  let bank: HookedBank;
  let business: TestBusiness;

  before(async () => {
    pg = await proxiedPostgres();
    proxy = pg.proxy;
    h = await createHarness({
      database: pg.location,
      provider: hooked((b) => {
        bank = b;
      }),
    });
    business = await h.createBusiness();
  });
  after(async () => {
    await h.close();
    await pg.close();
  });

  test("the commit lands but its answer is lost: 503, and the retry gets the stored answer, never a second effect", async () => {
    const body = customer();
    const key = "order-4411";
    // Generate's write is one autocommitted statement: its answer is the commit's.
    const sprung = proxy.dropAnswerTo(CREATE_ON_POSTGRES_MARKER);
    const lost = await h.request({ url: GENERATE, body, as: business, headers: { "idempotency-key": key } });
    await sprung;
    assertFailCode(lost, 503, "SERVICE_UNAVAILABLE");
    assert.equal(lost.headers["retry-after"], "1");

    // The same operation again (new timestamp, new signature, same Idempotency-Key).
    const retry = await retried(() =>
      h.request({ url: GENERATE, body, as: business, headers: { "idempotency-key": key } }),
    );
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers["idempotent-replayed"], "true", "the stored answer of the committed request");
    const accounts = await h.storage.db
      .selectFrom("accounts")
      .select(["account_number", "version"])
      .where("email", "=", body.email as string)
      .execute();
    assert.deepEqual(accounts, [{ account_number: retry.json().data.accountNumber, version: 1 }]);
  });

  test("a re-issue's COMMIT lands but its answer is lost: the retry gets the stored answer, one new number only", async () => {
    const body = customer();
    const first = await h.request({ url: GENERATE, body, as: business });
    assert.equal(first.statusCode, 201, first.body);
    const key = "reissue-4412";
    // A re-issue is a transaction of several statements: its answer is lost at COMMIT.
    const sprung = proxy.dropAnswerTo(PG_COMMIT);
    const lost = await h.request({ url: GENERATE, body, as: business, headers: { "idempotency-key": key } });
    await sprung;
    assertFailCode(lost, 503, "SERVICE_UNAVAILABLE");
    const retry = await retried(() =>
      h.request({ url: GENERATE, body, as: business, headers: { "idempotency-key": key } }),
    );
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    const accounts = await h.storage.db
      .selectFrom("accounts")
      .select(["account_number", "version"])
      .where("email", "=", body.email as string)
      .execute();
    assert.deepEqual(accounts, [{ account_number: retry.json().data.accountNumber, version: 2 }]);
  });

  test("a transfer's posting and COMMIT in one message, its answer lost: the retry gets the stored answer, one transaction", async () => {
    const opened = await h.request({ url: GENERATE, body: customer(), as: business });
    assert.equal(opened.statusCode, 201, opened.body);
    const accountNumber = opened.json().data.accountNumber as string;
    const body = { accountNumber, amount: 25_000, narration: "lost at commit" };
    const send = () =>
      h.request({
        url: `${API}/sandbox/transfers`,
        body,
        as: business,
        headers: { "idempotency-key": "pay-4413" },
      });
    // No webhook endpoint, so no delivery to add: the posting and COMMIT go in one message.
    const sprung = proxy.dropAnswerTo(PG_COMMIT);
    const lost = await send();
    await sprung;
    assertFailCode(lost, 503, "SERVICE_UNAVAILABLE");
    const retry = await retried(send);
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers["idempotent-replayed"], "true", "the stored answer of the committed transfer");
    const recorded = await h.storage.db
      .selectFrom("transactions")
      .select(["id", "amount"])
      .where("account_number", "=", accountNumber)
      .execute();
    assert.deepEqual(recorded, [{ id: retry.json().data.id, amount: 25_000 }]);
  });

  test("one business's transfers posted together, their COMMIT's answer lost: each 503, each retry its stored answer", async () => {
    const opened = await h.request({ url: GENERATE, body: customer(), as: business });
    const accountNumber = opened.json().data.accountNumber as string;
    const send = (i: number) =>
      h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount: 30_000 + i, narration: "a batch lost at commit" },
        as: business,
        headers: { "idempotency-key": `pay-batch-${i}` },
      });
    // The first transfer into the number goes alone; the next ones at once go together.
    assert.equal((await send(0)).statusCode, 201);
    const sprung = proxy.dropAnswerTo(PG_COMMIT);
    const lost = await Promise.all([1, 2, 3, 4, 5, 6].map(send));
    await sprung;
    const unknown = lost.filter((answer) => answer.statusCode === 503);
    assert.ok(
      unknown.length >= 2,
      `a batch's transfers share the lost COMMIT: ${lost.map((a) => a.statusCode)}`,
    );
    for (const answer of unknown) assertFailCode(answer, 503, "SERVICE_UNAVAILABLE");
    const retries = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => retried(() => send(i))));
    for (const [i, retry] of retries.entries()) {
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.json().data.amount, 30_001 + i);
      if (lost[i]?.statusCode === 503) {
        assert.equal(
          retry.headers["idempotent-replayed"],
          "true",
          "the stored answer of the committed transfer",
        );
      }
    }
    const recorded = await h.storage.db
      .selectFrom("transactions")
      .select("amount")
      .where("account_number", "=", accountNumber)
      .orderBy("amount")
      .execute();
    assert.deepEqual(
      recorded.map((row) => Number(row.amount)),
      [0, 1, 2, 3, 4, 5, 6].map((i) => 30_000 + i),
      "each transfer once",
    );
  });

  test("a database lost before the answer is stored: the fail envelope, and the key freed once it answers", async () => {
    const body = customer();
    bank.before = () => proxy.cut();
    const send = () =>
      h.request({ url: GENERATE, body, as: business, headers: { "idempotency-key": "k-2" } });
    const response = await send();
    assertFailCode(response, 502, "PROVIDER_UNAVAILABLE");
    assert.doesNotMatch(response.body, /57P01|ECONNREFUSED|terminat/i);
    // The claim could not be freed while the database was away. Once it answers again the key
    // is freed (a pooler restart once held it at 409 for the whole lease, a minute).
    proxy.restore();
    await freed(h, "k-2");
    const retry = await send();
    assert.equal(retry.statusCode, 201, retry.body);
  });
});

describe("a record that cannot be freed (SQLite, write lock held elsewhere)", () => {
  let h: Harness;
  let bank: HookedBank;
  let business: TestBusiness;

  before(async () => {
    h = await createHarness({
      dialect: "sqlite",
      env: { SQLITE_BUSY_TIMEOUT_MS: "100" },
      provider: hooked((b) => {
        bank = b;
      }),
    });
    business = await h.createBusiness();
  });
  after(() => h.close());

  test("the answer is the request's own failure in the envelope; the key is freed once the lock is", async () => {
    const file = h.database.dialect === "sqlite" ? h.database.file : "";
    const other = new SqliteDatabase(file);
    try {
      bank.before = () => {
        other.exec("begin immediate");
      };
      const body = customer();
      const send = () =>
        h.request({ url: GENERATE, body, as: business, headers: { "idempotency-key": "k-3" } });
      assertFailCode(await send(), 502, "PROVIDER_UNAVAILABLE");
      other.exec("rollback");
      await freed(h, "k-3");
      assert.equal((await send()).statusCode, 201, "run again once the database let the key go");
    } finally {
      other.close();
    }
  });
});
