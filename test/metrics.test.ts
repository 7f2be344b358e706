import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { composeServer } from "../src/compose/server.js";
import { assertFailCode } from "./helpers/assertions.js";
import { startCluster } from "./helpers/cluster.js";
import { createTestDatabase, DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  type Harness,
  type TestBusiness,
  testConfig,
} from "./helpers/harness.js";

/** The value of one sample in a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const matches = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
    if (matches) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

for (const dialect of DIALECTS) {
  describe(`GET /metrics on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness();
    });
    after(() => h.close());

    const scrape = async () => {
      const response = await h.app.inject({ method: "GET", url: "/metrics" });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
      return response.body;
    };

    test("counts requests by route pattern and status, and times them", async () => {
      const before = await scrape();
      const route = `${API}/account/generate`;
      const labels = { method: "POST", route, status: "201" };
      const was = sample(before, "vas_http_requests_total", labels) ?? 0;
      assert.equal((await h.request({ url: route, body: customer(), as: business })).statusCode, 201);
      const unsigned = await h.app.inject({ method: "GET", url: `${API}/account/list?page=7` });
      assert.equal(unsigned.statusCode, 401);
      const text = await scrape();
      assert.equal(sample(text, "vas_http_requests_total", labels), was + 1);
      assert.ok((sample(text, "vas_http_request_duration_seconds_count", labels) ?? 0) >= 1);
      assert.equal(
        sample(text, "vas_http_requests_total", { route: `${API}/account/list`, status: "401" }),
        1,
        "the route pattern, never the URL with its query",
      );
      assert.doesNotMatch(text, /page=7/);
    });

    test("accounts issued, re-issues apart, replays not counted", async () => {
      const count = async (kind: string, reissue: string) =>
        sample(await scrape(), "vas_accounts_issued_total", { kind, reissue }) ?? 0;
      const permanent = await count("permanent", "false");
      const reissued = await count("permanent", "true");
      const temporary = await count("temporary", "false");
      const body = customer();
      await h.request({ url: `${API}/account/generate`, body, as: business });
      await h.request({ url: `${API}/account/generate`, body, as: business }); // re-issue
      const key = { "idempotency-key": `metrics-${Date.now()}` };
      await h.request({
        url: `${API}/account/generate/temporary`,
        body: customer(),
        as: business,
        headers: key,
      });
      const replay = await h.request({
        url: `${API}/account/generate/temporary`,
        body: customer(),
        as: business,
        headers: key,
      });
      assert.notEqual(replay.statusCode, 201, "another body under the same key is refused, nothing issued");
      assert.equal(await count("permanent", "false"), permanent + 1);
      assert.equal(await count("permanent", "true"), reissued + 1);
      assert.equal(await count("temporary", "false"), temporary + 1);
    });

    test("provider errors by outcome; database statements and pool", async () => {
      // 00000000001 makes the embedded bank refuse (see the sandbox section of docs/api.md).
      const refused = await h.request({
        url: `${API}/account/generate`,
        body: customer({ bvn: "00000000001" }),
        as: business,
      });
      assert.equal(refused.statusCode, 400);
      const text = await scrape();
      assert.ok((sample(text, "vas_provider_errors_total", { outcome: "rejected" }) ?? 0) >= 1);
      assert.ok(
        (sample(text, "vas_db_query_duration_seconds_count", { kind: "insert", outcome: "ok" }) ?? 0) > 0,
      );
      assert.ok((sample(text, "vas_db_pool_connections", { state: "total" }) ?? 0) >= 1);
    });
  });
}

describe("METRICS_PORT: /metrics on a port of its own", () => {
  test("served there, and not on the API's port", async () => {
    const cluster = await startCluster(DIALECTS[0] ?? "sqlite", 1, { METRICS_PORT: "0" });
    try {
      const [server] = cluster.servers;
      const address = /"metricsAddress":"(http:\/\/[^"]+)"/.exec(server?.output() ?? "")?.[1];
      assert.ok(address, server?.output());
      const metrics = await fetch(`${address}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /vas_http_requests_total|vas_db_query_duration_seconds/);
      const main = await fetch(`${server?.url}/metrics`);
      assert.equal(main.status, 404);
      await main.arrayBuffer();
    } finally {
      await cluster.stop();
    }
  });
});

// Issue 24, item 8: in production the public port serves /metrics only behind METRICS_TOKEN.
describe("/metrics on the public port: production, METRICS_TOKEN", () => {
  const TOKEN = "metrics-token-0123456789abcdef";
  const scrape = (h: Harness, authorization?: string) =>
    h.app.inject({ method: "GET", url: "/metrics", headers: authorization ? { authorization } : {} });
  const assertRefused = (response: Awaited<ReturnType<typeof scrape>>) => {
    assertFailCode(response, 401, "INVALID_CREDENTIALS");
    assert.equal(response.headers["www-authenticate"], 'Bearer realm="metrics"');
    assert.doesNotMatch(response.body, /vas_http_requests_total/);
  };

  test("production without METRICS_PORT or METRICS_TOKEN: not served (404)", async () => {
    const h = await createHarness({ env: { NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:2525" } });
    try {
      const response = await scrape(h);
      assertFailCode(response, 404, "NOT_FOUND");
      assert.doesNotMatch(response.body, /vas_/);
      assert.equal((await scrape(h, `Bearer ${TOKEN}`)).statusCode, 404);
    } finally {
      await h.close();
    }
  });

  for (const env of ["production", "development"]) {
    test(`${env} with METRICS_TOKEN: 401 without it or with a wrong one, 200 with it`, async () => {
      const h = await createHarness({
        env: { NODE_ENV: env, METRICS_TOKEN: TOKEN, SMTP_URL: "smtp://127.0.0.1:2525" },
      });
      try {
        for (const authorization of [
          undefined,
          "",
          "Bearer",
          `Basic ${TOKEN}`,
          `Bearer ${TOKEN.slice(0, -1)}x`,
          `Bearer ${TOKEN}x`,
          `Bearer ${TOKEN.slice(0, 16)}`,
          `Bearer ${TOKEN} extra`,
        ]) {
          assertRefused(await scrape(h, authorization));
        }
        for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`]) {
          const response = await scrape(h, authorization);
          assert.equal(response.statusCode, 200, authorization);
          assert.match(response.body, /vas_http_requests_total/);
        }
      } finally {
        await h.close();
      }
    });
  }

  test("METRICS_PORT and METRICS_TOKEN: the token is asked for there, and the public port has none", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "vas-metrics-"));
    const database = await createTestDatabase(DIALECTS[0] ?? "sqlite", dir);
    const config = testConfig(database.location, randomBytes(32), {
      NODE_ENV: "production",
      SMTP_URL: "smtp://127.0.0.1:2525",
      PORT: "0",
      METRICS_PORT: "0",
      METRICS_TOKEN: TOKEN,
      DATA_DIR: dir,
    });
    const server = await composeServer(config, { logger: { level: "silent" } });
    try {
      const { address, metricsAddress } = await server.listen();
      assert.ok(metricsAddress);
      const refused = await fetch(`${metricsAddress}/metrics`);
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as { status: string }).status, "fail");
      const served = await fetch(`${metricsAddress}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(served.status, 200);
      assert.match(await served.text(), /vas_http_requests_total/);
      const main = await fetch(`${address}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(main.status, 404);
      await main.arrayBuffer();
    } finally {
      await server.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
