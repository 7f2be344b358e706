import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import {
  createTestDatabase,
  POSTGRES_ADMIN_URL,
  POSTGRES_AVAILABLE,
  type TestDatabase,
} from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { startTcpProxy, type TcpProxy } from "./helpers/tcp-proxy.js";

// The database goes away while the service runs (a proxy between them is cut), then comes back.

describe("PostgreSQL outage", { skip: !POSTGRES_AVAILABLE && "PostgreSQL is not answering" }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let h: Harness;
  let business: TestBusiness;

  before(async () => {
    database = await createTestDatabase("postgres", "");
    const target = new URL(POSTGRES_ADMIN_URL);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const url = new URL(database.location.dialect === "postgres" ? database.location.url : "");
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    h = await createHarness({ database: { dialect: "postgres", url: url.toString() } });
    business = await h.createBusiness();
  });

  after(async () => {
    await h.close();
    await proxy.close();
    await database.drop();
  });

  const generate = () => h.request({ url: `${API}/account/generate`, body: customer(), as: business });
  const list = () => h.request({ url: `${API}/account/list`, as: business });

  test("answers 503 fail with Retry-After while the database is away, then recovers by itself", async () => {
    assert.equal((await generate()).statusCode, 201);

    proxy.cut();
    for (const response of [
      await generate(),
      await list(),
      await h.app.inject({ method: "GET", url: "/health" }),
    ]) {
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.headers["retry-after"], "1");
      assert.deepEqual(response.json(), {
        status: "fail",
        message: "Service temporarily unavailable: the database is not reachable. Retry later.",
        error: { statusCode: 503, name: "AppError", code: "SERVICE_UNAVAILABLE" },
      });
    }

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
