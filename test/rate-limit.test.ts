import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sign } from "../src/auth/signature.js";
import { type Cluster, startCluster } from "./helpers/cluster.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { REDIS_AVAILABLE, REDIS_URL } from "./helpers/redis.js";
import type { ServerProcess } from "./helpers/server-process.js";

function assertLimited(response: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  assert.equal(response.statusCode, 429, response.body);
  const body = JSON.parse(response.body);
  assert.equal(body.status, "fail");
  assert.equal(body.error.code, "RATE_LIMITED");
  assert.match(body.message, /^Rate limit exceeded; retry after \d+ seconds?$/);
  const retryAfter = Number(response.headers["retry-after"]);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${response.headers["retry-after"]}`);
  assert.equal(response.headers["ratelimit-remaining"], "0");
  assert.ok(Number(response.headers["ratelimit-limit"]) > 0);
  assert.ok(Number(response.headers["ratelimit-reset"]) >= 1);
}

for (const dialect of DIALECTS) {
  describe(`rate limits on ${dialect}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness({ dialect, rateLimits: { perKeyPerMinute: 5, perIpPerMinute: 12 } });
    });
    after(() => h.close());

    test("per API key: the 6th request in a minute is a 429 with Retry-After and RateLimit-* headers", async () => {
      const business = await h.createBusiness();
      for (let i = 0; i < 5; i++) {
        const ok = await h.request({ url: `${API}/account/list`, as: business });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers["ratelimit-limit"], "5");
        assert.equal(ok.headers["ratelimit-remaining"], String(4 - i));
      }
      const limited = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      assertLimited(limited);
      assert.equal(
        await h.storage.db
          .selectFrom("accounts")
          .select("id")
          .where("business_id", "=", business.businessId)
          .execute()
          .then((rows) => rows.length),
        0,
        "a limited request does nothing",
      );
      const otherKey = await h.services.businesses.createKey(business.businessId);
      const fresh = await h.request({ url: `${API}/account/list`, as: otherKey });
      assert.equal(fresh.statusCode, 200, "each key has its own budget");
    });

    test("per client IP, before authentication: unauthenticated floods are cut off", async () => {
      const fresh = await createHarness({
        dialect,
        rateLimits: { perKeyPerMinute: 1000, perIpPerMinute: 4 },
      });
      try {
        const stranger = { apiKey: "vak_unknown", secretKey: "x" };
        for (let i = 0; i < 4; i++) {
          assert.equal((await fresh.request({ url: `${API}/account/list`, as: stranger })).statusCode, 401);
        }
        assertLimited(await fresh.request({ url: `${API}/account/list`, as: stranger }));
        const health = await fresh.app.inject({ method: "GET", url: "/health" });
        assert.equal(health.statusCode, 200, "the health check is not limited");
      } finally {
        await fresh.close();
      }
    });
  });
}

describe("rate limits shared across processes through Redis", {
  skip: !REDIS_AVAILABLE && "Redis is not answering",
}, () => {
  let cluster: Cluster;
  let servers: ServerProcess[];
  let business: TestBusiness;

  before(async () => {
    cluster = await startCluster(DIALECTS.at(-1) ?? "sqlite", 2, {
      REDIS_URL,
      REDIS_KEY_PREFIX: `vas-test-${randomBytes(6).toString("hex")}:`,
      RATE_LIMIT_PER_KEY_PER_MIN: "10",
      RATE_LIMIT_PER_IP_PER_MIN: "1000",
    });
    ({ servers, business } = cluster);
  });
  after(() => cluster.stop());

  test("2 processes with a limit of 10 per key let 10 requests through in total, not 20", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) {
      const timestamp = String(Date.now());
      const response = await fetch(`${servers[i % 2]!.url}${API}/account/list`, {
        headers: {
          "x-api-key": business.apiKey,
          "x-timestamp": timestamp,
          "x-signature": sign(business.secretKey, "{}", timestamp),
        },
      });
      statuses.push(response.status);
      if (response.status === 429) assert.ok(Number(response.headers.get("retry-after")) >= 1);
      await response.arrayBuffer();
    }
    assert.equal(statuses.filter((s) => s === 200).length, 10, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 6);
  });
});
