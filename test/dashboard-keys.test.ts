import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, verifyBusiness } from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";

// The API keys page over HTTP (issue 43, item 8): deactivating the only active key warns and asks
// to confirm, as revoking it does; with another key active it deactivates at once.

const PASSWORD = "correct horse battery staple 42";

for (const dialect of DIALECTS) {
  describe(`API keys in the dashboard on ${dialect}`, () => {
    let h: Harness;

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
    });
    after(() => h.close());

    test("Deactivate on the only active key warns and asks to confirm; with another active, it is done at once", async () => {
      const email = `owner.${dialect}@keys.example`;
      const { business } = await signedUpBusiness(h.services, {
        businessName: "Key Ring Ltd",
        email,
        password: PASSWORD,
      });
      await verifyBusiness(h.services, business.businessId);
      const only = await h.services.businesses.createKey(business.businessId);
      const owner = pageClient(h.app);
      const login = await owner.get("/dashboard/login");
      await owner.post("/dashboard/login", { _csrf: login.token ?? "", email, password: PASSWORD });
      const status = async (keyId: string) =>
        (await h.services.businesses.listKeys(business.businessId)).find((k) => k.keyId === keyId)?.status;
      const deactivate = async (keyId: string, form: Record<string, string> = {}) => {
        const { token } = await owner.get("/dashboard/keys");
        return owner.post(`/dashboard/keys/${keyId}/deactivate`, { _csrf: token ?? "", ...form });
      };

      const warned = await deactivate(only.keyId);
      assert.equal(warned.statusCode, 200);
      assert.match(warned.body, /role="alert"><strong>This is your only active key\.<\/strong>/);
      assert.match(warned.body, /name="confirm" value="yes"/);
      assert.equal(await status(only.keyId), "active", "nothing changed before the confirmation");
      const confirmed = await deactivate(only.keyId, { confirm: "yes" });
      assert.equal(confirmed.statusCode, 303);
      assert.equal(confirmed.headers.location, "/dashboard/keys?done=deactivated");
      assert.equal(await status(only.keyId), "inactive");

      // Two active keys: either one deactivates at once, no warning.
      const first = await h.services.businesses.createKey(business.businessId);
      const second = await h.services.businesses.createKey(business.businessId);
      const direct = await deactivate(first.keyId);
      assert.equal(direct.statusCode, 303);
      assert.equal(await status(first.keyId), "inactive");
      assert.equal((await deactivate(second.keyId)).statusCode, 200, "now the only active one: warned");
      assert.equal(await status(second.keyId), "active");
    });
  });
}
