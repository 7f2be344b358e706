import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { masterKeyId } from "../src/businesses/secret-box.js";
import { runCli } from "../src/cli/run.js";
import { MasterKeyMismatchError, openServices } from "../src/compose/services.js";
import { createTestDatabase, DIALECTS, databaseUrl, type TestDatabase } from "./helpers/databases.js";
import { API, appFor, customer, signedInject, type TestBusiness, testConfig } from "./helpers/harness.js";

for (const dialect of DIALECTS) {
  describe(`key rotation on ${dialect}`, () => {
    let dir: string;
    let database: TestDatabase;
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "vas-rotation-"));
      database = await createTestDatabase(dialect, dir);
    });
    after(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("an API secret is rotated with zero downtime: two active keys, switch, revoke the old", async () => {
      const services = await openServices(testConfig(database.location, oldKey));
      const app = appFor(services);
      try {
        const created = await services.businesses.createBusiness("Rotating Ltd", "completed");
        const oldPair = { apiKey: created.apiKey, secretKey: created.secretKey };
        const newPair = await services.businesses.createKey(created.business.id);
        for (const pair of [oldPair, newPair]) {
          const response = await signedInject(app, { url: `${API}/account/list`, as: pair });
          assert.equal(response.statusCode, 200, "both keys work while clients switch");
        }
        await services.businesses.setKeyStatus(oldPair.apiKey, "revoked");
        assert.equal((await signedInject(app, { url: `${API}/account/list`, as: oldPair })).statusCode, 401);
        assert.equal((await signedInject(app, { url: `${API}/account/list`, as: newPair })).statusCode, 200);
      } finally {
        await app.close();
        await services.close();
      }
    });

    test("vas secrets rotate-master-key re-seals every secret under the new key while servers keep working", async () => {
      // Before: everything sealed with the old key, one account issued.
      const before = await openServices(testConfig(database.location, oldKey));
      const created = await before.businesses.createBusiness("Sealed Ltd", "completed");
      const business: TestBusiness = {
        businessId: created.business.id,
        keyId: created.keyId,
        name: "Sealed Ltd",
        apiKey: created.apiKey,
        secretKey: created.secretKey,
      };
      const beforeApp = appFor(before);
      const first = await signedInject(beforeApp, {
        url: `${API}/account/generate`,
        body: customer(),
        as: business,
      });
      assert.equal(first.statusCode, 201);
      await beforeApp.close();
      await before.close();

      // During: a server restarted with the new key and the old one as previous.
      const during = await openServices(
        testConfig(database.location, newKey, { VAS_MASTER_KEY_PREVIOUS: oldKey.toString("hex") }),
      );
      const duringApp = appFor(during);
      try {
        assert.equal(
          (await signedInject(duringApp, { url: `${API}/account/list`, as: business })).statusCode,
          200,
        );
        let stdout = "";
        let stderr = "";
        const code = await runCli(["secrets", "rotate-master-key", "--json"], {
          env: {
            DATABASE_URL: databaseUrl(database.location),
            DATA_DIR: dir,
            VAS_MASTER_KEY: newKey.toString("hex"),
            VAS_MASTER_KEY_PREVIOUS: `${randomBytes(32).toString("hex")},${oldKey.toString("base64")}`,
          },
          stdout: (text) => {
            stdout += text;
          },
          stderr: (text) => {
            stderr += text;
          },
        });
        assert.equal(code, 0, stderr);
        const report = JSON.parse(stdout);
        assert.ok(report.resealed >= 4, `two API keys and two service keys: ${stdout}`);
        assert.equal(
          (await signedInject(duringApp, { url: `${API}/account/list`, as: business })).statusCode,
          200,
        );
      } finally {
        await duringApp.close();
        await during.close();
      }

      // After: the new key alone opens everything; the old key alone opens nothing.
      const afterwards = await openServices(testConfig(database.location, newKey));
      const afterApp = appFor(afterwards);
      try {
        const list = await signedInject(afterApp, { url: `${API}/account/list`, as: business });
        assert.equal(list.statusCode, 200);
        assert.equal(list.json().data[0].accountNumber, first.json().data.accountNumber);
        const next = await signedInject(afterApp, {
          url: `${API}/account/generate`,
          body: customer(),
          as: business,
        });
        assert.equal(next.statusCode, 201);
        assert.notEqual(
          next.json().data.accountNumber,
          first.json().data.accountNumber,
          "the serial permutation survived",
        );
        const sealed = [
          ...(await afterwards.storage.db
            .selectFrom("api_keys")
            .select("secret_ciphertext as value")
            .execute()),
          ...(await afterwards.storage.db.selectFrom("settings").select("value").execute()),
        ];
        for (const { value } of sealed) assert.equal(value.split(".")[1], masterKeyId(newKey));
      } finally {
        await afterApp.close();
        await afterwards.close();
      }
      await assert.rejects(openServices(testConfig(database.location, oldKey)), MasterKeyMismatchError);
    });
  });
}
