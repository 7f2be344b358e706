import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sign } from "../src/auth/signature.js";
import type { Services } from "../src/compose/services.js";
import { CLI } from "../src/core/actor.js";
import { type Cluster, startCluster } from "./helpers/cluster.js";
import { DATABASE_KINDS } from "./helpers/databases.js";
import { customer, type TestBusiness } from "./helpers/harness.js";
import { assertOnePermanentAccount } from "./helpers/invariants.js";
import type { ServerProcess } from "./helpers/server-process.js";

// Several real server processes on one database, as behind a load balancer (docs/deploy.md).

const PROCESSES = 4;
const CALLS = 400;
const EMAILS = [
  "ada@example.com",
  "bola@example.com",
  "chidi@example.com",
  "dayo@example.com",
  "efe@example.com",
];

async function signedFetch(
  baseUrl: string,
  as: TestBusiness,
  method: "GET" | "POST",
  pathname: string,
  body?: unknown,
) {
  const payload = body === undefined ? "{}" : JSON.stringify(body);
  const timestamp = String(Date.now());
  const response = await fetch(`${baseUrl}/api/v1/external${pathname}`, {
    method,
    headers: {
      "x-api-key": as.apiKey,
      "x-timestamp": timestamp,
      "x-signature": sign(as.secretKey, payload, timestamp),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: payload }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

for (const dialect of DATABASE_KINDS) {
  describe(`${PROCESSES} server processes on one ${dialect} database`, () => {
    let cluster: Cluster;
    let services: Services;
    let servers: ServerProcess[];
    let business: TestBusiness;

    before(async () => {
      cluster = await startCluster(dialect, PROCESSES, { LOG_LEVEL: "info", AUTH_CACHE_TTL_MS: "1000" });
      ({ services, servers, business } = cluster);
    });

    after(async () => {
      const codes = await cluster.stop();
      assert.deepEqual(codes, Array(servers.length).fill(0), "every process shut down cleanly");
    });

    test(`${CALLS} concurrent generates for ${EMAILS.length} emails: one account each, holding its last issued number`, async () => {
      const results = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          signedFetch(
            servers[i % PROCESSES]!.url,
            business,
            "POST",
            "/account/generate",
            customer({ email: EMAILS[i % EMAILS.length], name: `Caller ${i}` }),
          ).then((result) => ({ ...result, email: EMAILS[i % EMAILS.length]! })),
        ),
      );
      const failures = results.filter((r) => r.status !== 200 && r.status !== 201);
      assert.deepEqual(failures, [], "every call succeeded");
      assert.equal(results.filter((r) => r.status === 201).length, EMAILS.length, "one creation per email");
      const numbers = results.map((r) => r.body.data.accountNumber as string);
      assert.equal(new Set(numbers).size, CALLS, "no number was issued twice, across processes");

      const db = services.storage.db;
      for (const email of EMAILS) {
        const issued = results
          .filter((r) => r.email === email)
          .map((r) => r.body.data.accountNumber as string);
        await assertOnePermanentAccount(db, business.businessId, email, issued);
      }
      const count = await db
        .selectFrom("businesses")
        .select("account_count")
        .where("id", "=", business.businessId)
        .executeTakeFirst();
      assert.equal(count?.account_count, EMAILS.length);
    });

    test("a key or status change made by the CLI reaches every process within the cache bound", async () => {
      // Each process may reuse a key's record for AUTH_CACHE_TTL_MS (1 s here): poll every
      // process until it honours the change, for at most a few times that bound.
      const everyProcess = async (expected: number, message?: string) => {
        for (const server of servers) {
          let result = await signedFetch(server.url, business, "GET", "/account/list");
          for (let attempt = 0; attempt < 40 && result.status !== expected; attempt++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            result = await signedFetch(server.url, business, "GET", "/account/list");
          }
          assert.equal(result.status, expected, `${server.url}: ${JSON.stringify(result.body)}`);
          if (message) assert.equal(result.body.message, message);
        }
      };
      await everyProcess(200);
      await services.businesses.setKeyStatus(business.apiKey, "inactive");
      await everyProcess(401, "Invalid API key");
      await services.businesses.setKeyStatus(business.apiKey, "active");
      await everyProcess(200);
      await services.businesses.setVerificationStatus(business.businessId, "rejected", CLI, "suspended");
      await everyProcess(401, "Business not verified");
      await services.businesses.setVerificationStatus(business.businessId, "in_progress", CLI);
      await services.businesses.setVerificationStatus(business.businessId, "completed", CLI);
      await everyProcess(200);
    });
  });
}
