import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

// `vas webhook add|list|enable|remove` against the database a server uses.

for (const dialect of DIALECTS) {
  describe(`vas webhook commands on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let business: TestBusiness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      business = await h.createBusiness();
      env = cliEnv(h, masterKey);
    });
    after(() => h.close());

    test("add, list, enable and remove an endpoint; the secret is printed once and works", async () => {
      const added = await runVas(
        [
          "webhook",
          "add",
          business.businessId,
          "http://127.0.0.1:9/hook",
          "--events",
          "payment.received",
          "--json",
        ],
        env,
      );
      assert.equal(added.code, 0, added.stderr);
      const endpoint = JSON.parse(added.stdout);
      assert.match(endpoint.secret, /^whsec_/);
      assert.deepEqual(endpoint.events, ["payment.received"]);
      const owner = { businessId: business.businessId, businessName: business.name };
      const [stored] = await h.services.webhooks.list(owner);
      assert.equal(stored?.id, endpoint.id);

      const listed = await runVas(["webhook", "list", business.businessId], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(
        listed.stdout,
        new RegExp(`${endpoint.id}\\s+http://127.0.0.1:9/hook\\s+payment.received\\s+yes`),
      );
      assert.doesNotMatch(listed.stdout, /whsec_/, "never the secret again");

      await h.services.webhooks.update(owner, endpoint.id, { enabled: false });
      assert.match(
        (await runVas(["webhook", "list", business.businessId], env)).stdout,
        /no \(disabled by the business\)/,
      );
      const enabled = await runVas(["webhook", "enable", business.businessId, endpoint.id], env);
      assert.equal(enabled.code, 0, enabled.stderr);
      assert.equal((await h.services.webhooks.get(owner, endpoint.id)).enabled, true);

      const removed = await runVas(["webhook", "remove", business.businessId, endpoint.id], env);
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(await h.services.webhooks.list(owner), []);
      const again = await runVas(["webhook", "remove", business.businessId, endpoint.id], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /Webhook endpoint not found/);
    });

    test("bad arguments exit 2 and add nothing", async () => {
      for (const argv of [
        ["webhook", "add", business.businessId, "ftp://example.com/x"],
        ["webhook", "add", business.businessId, "http://127.0.0.1:9/x", "--events", "payment.sent"],
        ["webhook", "add", "not-a-uuid", "http://127.0.0.1:9/x"],
        ["webhook", "add", business.businessId],
        ["webhook", "list"],
      ]) {
        assert.equal((await runVas(argv, env)).code, 2, argv.join(" "));
      }
      const unknown = await runVas(["webhook", "list", "00000000-0000-4000-8000-000000000000"], env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no business has id/);
    });
  });
}
