import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { DEFAULT_PAYOUT_FEE_TIERS } from "../src/ledger/payout-fees.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

// `vas business set-payout-fee` against the database a server uses: the schedule each future
// payout of the business pays, read back by the service the server runs.

for (const dialect of DIALECTS) {
  describe(`vas business set-payout-fee on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let business: TestBusiness;
    let other: TestBusiness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      business = await h.createBusiness({ name: "Tiered Ltd" });
      other = await h.createBusiness({ name: "Untouched Ltd" });
      env = cliEnv(h, masterKey);
    });
    after(() => h.close());

    test("a business starts on the default, gets its own tiers, and can go back", async () => {
      const shown = await runVas(["business", "set-payout-fee", business.businessId], env);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(
        shown.stdout,
        /\(the default\): up to 500000 kobo: 1000 kobo; up to 5000000 kobo: 2500 kobo; above: 5000 kobo/,
      );

      const set = await runVas(
        [
          "business",
          "set-payout-fee",
          business.businessId,
          "--tiers",
          "100000:500, 1000000:1500,*:3000",
          "--json",
        ],
        env,
      );
      assert.equal(set.code, 0, set.stderr);
      const expected = [
        { upTo: 100_000, fee: 500 },
        { upTo: 1_000_000, fee: 1_500 },
        { upTo: null, fee: 3_000 },
      ];
      assert.deepEqual(JSON.parse(set.stdout), {
        businessId: business.businessId,
        tiers: expected,
        isDefault: false,
      });
      assert.deepEqual(await h.services.payoutSettings.feeTiers(business.businessId), {
        tiers: expected,
        isDefault: false,
      });
      assert.deepEqual(await h.services.payoutSettings.feeTiers(other.businessId), {
        tiers: DEFAULT_PAYOUT_FEE_TIERS,
        isDefault: true,
      });

      const reset = await runVas(
        ["business", "set-payout-fee", business.businessId, "--tiers", "default"],
        env,
      );
      assert.equal(reset.code, 0, reset.stderr);
      assert.match(reset.stdout, /\(the default\)/);
      assert.equal((await h.services.payoutSettings.feeTiers(business.businessId)).isDefault, true);
    });

    test("a schedule that cannot be read is a usage error that changes nothing", async () => {
      await runVas(["business", "set-payout-fee", business.businessId, "--tiers", "1000:10,*:20"], env);
      for (const tiers of ["1000:10", "*:5,1000:10", "1000:10,500:5,*:20", "1000:ten,*:20", ""]) {
        const refused = await runVas(
          ["business", "set-payout-fee", business.businessId, "--tiers", tiers],
          env,
        );
        assert.equal(refused.code, 2, `${tiers}: ${refused.stderr}`);
        assert.match(refused.stderr, /--tiers: /);
      }
      assert.deepEqual((await h.services.payoutSettings.feeTiers(business.businessId)).tiers, [
        { upTo: 1_000, fee: 10 },
        { upTo: null, fee: 20 },
      ]);
      assert.equal((await runVas(["business", "set-payout-fee", "not-a-uuid"], env)).code, 2);
      const unknown = await runVas(
        ["business", "set-payout-fee", "00000000-0000-4000-8000-000000000000", "--tiers", "*:1"],
        env,
      );
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no business has id/);
    });

    test("the service refuses a schedule it could not charge by, whoever calls it", async () => {
      await assert.rejects(
        h.services.payoutSettings.setFeeTiers(business.businessId, [{ upTo: 10, fee: 1 }]),
        { code: "VALIDATION_FAILED", message: "the last tier must be *:fee, for every larger payout" },
      );
    });
  });
}
