import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { composeServer } from "../src/compose/server.js";
import { createHarness, testConfig } from "./helpers/harness.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

test("the harness builds the very app production builds: same routes, same settings", async () => {
  const masterKey = randomBytes(32);
  const h = await createHarness({ masterKey });
  const server = await composeServer(testConfig(h.database, masterKey));
  try {
    await server.app.ready();
    assert.equal(h.app.printRoutes({ commonPrefix: false }), server.app.printRoutes({ commonPrefix: false }));
    for (const app of [h.app, server.app]) {
      assert.equal(app.initialConfig.bodyLimit, 16_384);
      assert.equal(app.initialConfig.connectionTimeout, 30_000);
    }
    // What the test servers used to leave out: the auth cache, as in production.
    assert.equal(h.services.config.authCacheTtlMs, 2_000);
    assert.equal(server.services.config.authCacheTtlMs, 2_000);
    assert.deepEqual(server.jobs.names(), [
      "prune-request-records",
      "prune-events",
      "prune-sessions",
      "emit-account-expired",
      "ledger-checkpoint",
      "check-payouts",
      "settle",
      "reconcile",
      "return-held-credits",
      "watch-deadlines",
      "send-mail",
      "virtual-bank-payout-notices",
    ]);
  } finally {
    await server.close();
    await h.close();
  }
});

test("one wiring path: the app and the services are built in compose/ alone", () => {
  const callers = (pattern: RegExp) => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (
          /\.ts$/.test(entry.name) &&
          !/\.test\.ts$/.test(entry.name) &&
          pattern.test(readFileSync(file, "utf8"))
        )
          found.push(path.relative(ROOT, file));
      }
    };
    for (const dir of ["src", "test", "bench"]) walk(path.join(ROOT, dir));
    return found.sort();
  };
  assert.deepEqual(callers(/\bbuildApp\(/), ["src/app.ts", "src/compose/server.ts"]);
  for (const service of ["AccountService", "BusinessService", "Authenticator", "RequestRecords"]) {
    assert.deepEqual(callers(new RegExp(`new ${service}\\(`)), ["src/compose/services.ts"], service);
  }
});
