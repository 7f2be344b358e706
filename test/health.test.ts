import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { assertFailCode } from "./helpers/assertions.js";
import { DIALECTS, POSTGRES_ADMIN_URL } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// The health checks tell the truth: when writes fail, a load balancer is told so.

const WRITES_REFUSED = "Service temporarily unavailable: the database cannot accept writes. Retry later.";

/** Makes the database refuse writes, and gives them back. */
interface WriteBreaker {
  refuse(): Promise<void>;
  allow(): Promise<void>;
}

/** SQLite: the database file may not grow (what a full disk does to it). */
function sqliteFull(h: Harness): WriteBreaker {
  return {
    async refuse() {
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(h.storage.db);
      await sql.raw(`pragma max_page_count = ${rows[0]?.page_count}`).execute(h.storage.db);
    },
    allow: async () => {
      await sql`pragma max_page_count = 1073741823`.execute(h.storage.db);
    },
  };
}

/** PostgreSQL: the database becomes read-only (as a replica, or a database set read-only, is). */
function postgresReadOnly(h: Harness): WriteBreaker {
  const name = h.database.dialect === "postgres" ? new URL(h.database.url).pathname.slice(1) : "";
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      await client.query(statement);
      // Existing sessions keep their setting: end them, and the pool reconnects with the new one.
      await client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [name]);
    } finally {
      await client.end();
    }
  };
  return {
    refuse: () => admin(`alter database "${name}" set default_transaction_read_only = on`),
    allow: () => admin(`alter database "${name}" reset default_transaction_read_only`),
  };
}

for (const dialect of DIALECTS) {
  describe(`health on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let breaker: WriteBreaker;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
      breaker = dialect === "sqlite" ? sqliteFull(h) : postgresReadOnly(h);
    });
    after(() => h.close());

    const get = (url: string) => h.app.inject({ method: "GET", url });
    const generate = () => h.request({ url: `${API}/account/generate`, body: customer(), as: business });

    test("healthy: live and ready answer 200, and /health is readiness", async () => {
      assert.deepEqual((await get("/health/live")).json(), { status: "success", data: { status: "live" } });
      for (const url of ["/health", "/health/ready"]) {
        const response = await get(url);
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { status: "success", data: { status: "ok", database: "ok" } });
      }
    });

    test("writes refused: 503 with Retry-After, readiness degraded, liveness still 200; then it recovers", async () => {
      await breaker.refuse();
      try {
        // The first requests may meet the connections being replaced; a few at most.
        let refused = await generate();
        for (let i = 0; i < 200 && refused.json().message !== WRITES_REFUSED; i++) refused = await generate();
        assertFailCode(refused, 503, "SERVICE_UNAVAILABLE");
        assert.equal(refused.json().message, WRITES_REFUSED);
        assert.equal(refused.headers["retry-after"], "1");

        for (const url of ["/health", "/health/ready"]) {
          const response = await get(url);
          assertFailCode(response, 503, "SERVICE_DEGRADED");
          assert.equal(response.headers["retry-after"], "5");
          assert.deepEqual(response.json().data, { status: "degraded", database: "refusing-writes" });
        }
        assert.equal(
          (await get("/health/live")).statusCode,
          200,
          "the process itself is fine: do not restart it",
        );
      } finally {
        await breaker.allow();
      }
      let created = await generate();
      for (let i = 0; i < 5 && created.statusCode !== 201; i++) created = await generate();
      assert.equal(created.statusCode, 201, created.body);
      assert.equal((await get("/health/ready")).statusCode, 200);
    });
  });
}
