import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { sign } from "../src/auth/signature.js";
import type { IssuedKeyPair } from "../src/businesses/api-keys.js";
import { openServices } from "../src/compose/services.js";
import { openStorage } from "../src/storage/database.js";
import { createTestDatabase, DIALECTS, databaseUrl, type TestDatabase } from "./helpers/databases.js";
import { testConfig } from "./helpers/harness.js";
import { type ServerProcess, startServerProcess } from "./helpers/server-process.js";

// After a run full of identity numbers and signed requests, nothing the service wrote (its
// database, its logs at the most verbose level) holds a secret, a BVN or a NIN in plaintext.

const BVNS = ["22198765432", "22311122233"];
const NINS = ["70123456789", "81234567890"];

for (const dialect of DIALECTS) {
  describe(`secrets at rest on ${dialect}`, () => {
    let dir: string;
    let database: TestDatabase;
    let server: ServerProcess;
    const masterKey = randomBytes(32).toString("hex");
    const secrets: string[] = [masterKey, ...BVNS, ...NINS];

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "vas-secrets-"));
      database = await createTestDatabase(dialect, dir);
      const services = await openServices(testConfig(database.location, Buffer.from(masterKey, "hex")));
      const created = await services.businesses.createBusiness("Secretive Ltd", "completed");
      const second = await services.businesses.createKey(created.business.id);
      secrets.push(created.apiKey, created.secretKey, second.apiKey, second.secretKey);
      await services.close();

      server = await startServerProcess({
        DATABASE_URL: databaseUrl(database.location),
        DATA_DIR: dir,
        VAS_MASTER_KEY: masterKey,
        LOG_LEVEL: "trace",
      });
      const call = async (
        pathname: string,
        body: unknown,
        key: IssuedKeyPair = created,
        signature?: string,
      ) => {
        const payload = body === undefined ? "{}" : JSON.stringify(body);
        const timestamp = String(Date.now());
        const response = await fetch(`${server.url}/api/v1/external${pathname}`, {
          method: body === undefined ? "GET" : "POST",
          headers: {
            "x-api-key": key.apiKey,
            "x-timestamp": timestamp,
            "x-signature": signature ?? sign(key.secretKey, payload, timestamp),
            "idempotency-key": randomBytes(8).toString("hex"),
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: payload }),
        });
        await response.arrayBuffer();
        return response.status;
      };
      const statuses = [
        await call("/account/generate", { name: "Ada", email: "ada@example.com", bvn: BVNS[0] }),
        await call("/account/generate", { name: "Ada", email: "ada@example.com", bvn: BVNS[1] }),
        await call(
          "/account/generate/temporary",
          { name: "Bola", email: "bola@example.com", nin: NINS[0] },
          second,
        ),
        await call("/account/generate", { name: "Chidi", email: "c@example.com", NIN: NINS[1] }),
        await call("/account/generate", { name: "", email: "bad", bvn: BVNS[0] }),
        await call(
          "/account/generate",
          { name: "Dayo", email: "d@example.com", bvn: BVNS[1] },
          created,
          "0".repeat(64),
        ),
        await call("/account/generate", {
          name: "Efe",
          email: "e@example.com",
          bvn: "00000000001",
          nin: NINS[0],
        }),
        await call("/account/list", undefined),
      ];
      assert.deepEqual(statuses, [201, 200, 201, 201, 400, 401, 400, 200]);
      assert.equal(await server.stop(), 0);
    });

    after(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("the logs hold no secret key, API key, master key, BVN or NIN", () => {
      const logs = server.output();
      assert.ok(logs.includes("request completed"), "the logs were captured");
      for (const secret of secrets)
        assert.ok(!logs.includes(secret), `found ${secret.slice(0, 6)}… in the logs`);
    });

    test("the database holds none of them in plaintext", async () => {
      let stored: string;
      if (database.location.dialect === "sqlite") {
        const files = readdirSync(dir).filter((name) => name.startsWith("vas.db"));
        assert.ok(files.includes("vas.db"));
        stored = files.map((name) => readFileSync(path.join(dir, name)).toString("latin1")).join("\n");
      } else {
        const storage = openStorage(database.location);
        try {
          const tables = await sql<{
            tablename: string;
          }>`select tablename from pg_tables where schemaname = 'public'`.execute(storage.db);
          const dumps: string[] = [];
          for (const { tablename } of tables.rows) {
            const rows = await sql<{
              row: unknown;
            }>`select row_to_json(t) as row from ${sql.table(tablename)} t`.execute(storage.db);
            dumps.push(JSON.stringify(rows.rows));
          }
          stored = dumps.join("\n");
        } finally {
          await storage.close();
        }
      }
      assert.ok(stored.includes("Secretive Ltd"), "the dump is readable");
      for (const secret of secrets)
        assert.ok(!stored.includes(secret), `found ${secret.slice(0, 6)}… in the database`);
    });
  });
}
