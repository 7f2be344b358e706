import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { POSTGRES_AVAILABLE } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { proxiedPostgres, type TcpProxy } from "./helpers/tcp-proxy.js";

// The database goes away while the service runs (a proxy between them is cut), then comes back.

describe("PostgreSQL outage", { skip: !POSTGRES_AVAILABLE && "PostgreSQL is not answering" }, () => {
  let pg: Awaited<ReturnType<typeof proxiedPostgres>>;
  let proxy: TcpProxy;
  let h: Harness;
  let business: TestBusiness;

  before(async () => {
    pg = await proxiedPostgres();
    proxy = pg.proxy;
    h = await createHarness({ database: pg.location });
    business = await h.createBusiness();
  });

  after(async () => {
    await h.close();
    await pg.close();
  });

  const generate = () => h.request({ url: `${API}/account/generate`, body: customer(), as: business });
  const list = () => h.request({ url: `${API}/account/list`, as: business });

  test("answers 503 fail with Retry-After while the database is away, then recovers by itself", async () => {
    assert.equal((await generate()).statusCode, 201);

    proxy.cut();
    for (const response of [await generate(), await list()]) {
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.headers["retry-after"], "1");
      assert.deepEqual(response.json(), {
        status: "fail",
        message: "Service temporarily unavailable: the database is not reachable. Retry later.",
        error: { statusCode: 503, name: "AppError", code: "SERVICE_UNAVAILABLE" },
      });
    }
    const health = await h.app.inject({ method: "GET", url: "/health" });
    assert.equal(health.statusCode, 503, health.body);
    assert.deepEqual(health.json(), {
      status: "fail",
      message: "Service degraded: the database does not answer",
      error: { statusCode: 503, name: "AppError", code: "SERVICE_DEGRADED" },
      data: { status: "degraded", database: "unreachable" },
    });

    proxy.restore();
    // The pool reconnects on demand: a few attempts at most (bounded, not timed).
    let recovered = await list();
    for (let attempt = 0; attempt < 5 && recovered.statusCode !== 200; attempt++) recovered = await list();
    assert.equal(recovered.statusCode, 200, recovered.body);
    assert.equal((await generate()).statusCode, 201);
    assert.equal(recovered.json().pagination.total, 1, "the request made during the outage wrote nothing");
  });

  test("a database that is down at start is a clear error and a non-zero exit", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: new URL("..", import.meta.url),
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: "postgres://postgres:hunter2@127.0.0.1:1/vas",
        VAS_MASTER_KEY: "a".repeat(64),
        PORT: "0",
      },
      encoding: "utf8",
    });
    assert.equal(result.status, 1);
    assert.match(
      result.stderr,
      /Cannot reach the database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/vas/,
    );
    assert.doesNotMatch(result.stderr, /hunter2/, "the password is not printed");
  });
});
