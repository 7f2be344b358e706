import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { DEFAULT_PAYOUT_FEE_TIERS } from "../src/ledger/payout-fees.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, type TestBusiness } from "./helpers/harness.js";

// The operator's payout settings from the CLI, against the database a server uses: the fee each
// future payout of a business pays, its API switch and limits, and a key's payout addresses,
// read back by the service the server runs.

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

      // NGN 15 on a payout of NGN 1,000.01 is above the CBN's cap of NGN 10 there: refused unless said.
      const capped = await runVas(
        ["business", "set-payout-fee", business.businessId, "--tiers", "100000:500, 1000000:1500,*:3000"],
        env,
      );
      assert.equal(capped.code, 1, capped.stdout);
      assert.match(
        capped.stderr,
        /the fee of 1500 kobo on payouts from 100001 to 1000000 kobo is above the cap of 1000 kobo/,
      );
      assert.equal((await h.services.payoutSettings.feeTiers(business.businessId)).isDefault, true);
      const set = await runVas(
        [
          "business",
          "set-payout-fee",
          business.businessId,
          "--tiers",
          "100000:500, 1000000:1500,*:3000",
          "--above-cbn-caps",
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

    test("set-payouts turns API payouts on and off; set-payout-limits sets and restores the limits", async () => {
      const shown = await runVas(["business", "set-payouts", other.businessId], env);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(
        shown.stdout,
        /through the API off; at most NGN 5,000,000\.00 a payout \(default\), NGN 50,000,000\.00 a day \(default\)/,
      );
      const on = await runVas(["business", "set-payouts", other.businessId, "--api", "on", "--json"], env);
      assert.equal(on.code, 0, on.stderr);
      assert.equal(JSON.parse(on.stdout).apiPayouts, true);
      assert.equal((await h.services.payoutSettings.terms(other.businessId)).apiPayouts, true);
      const limits = await runVas(
        [
          "business",
          "set-payout-limits",
          other.businessId,
          "--per-payout",
          "100000",
          "--daily",
          "250000",
          "--json",
        ],
        env,
      );
      assert.equal(limits.code, 0, limits.stderr);
      assert.deepEqual(JSON.parse(limits.stdout), {
        businessId: other.businessId,
        apiPayouts: true,
        perPayoutLimit: 100_000,
        dailyLimit: 250_000,
        defaults: { perPayoutLimit: false, dailyLimit: false },
      });
      const back = await runVas(
        ["business", "set-payout-limits", other.businessId, "--daily", "default"],
        env,
      );
      assert.match(back.stdout, /at most NGN 1,000\.00 a payout, NGN 50,000,000\.00 a day \(default\)/);
      assert.equal(
        (await runVas(["business", "set-payouts", other.businessId, "--api", "maybe"], env)).code,
        2,
      );
      assert.equal(
        (await runVas(["business", "set-payout-limits", other.businessId, "--daily", "0"], env)).code,
        2,
      );
      await runVas(["business", "set-payouts", other.businessId, "--api", "off"], env);
      assert.equal((await h.services.payoutSettings.terms(other.businessId)).apiPayouts, false);
    });

    test("key set-payout-ips limits a key's payouts to addresses, and --any lifts it", async () => {
      const set = await runVas(
        ["key", "set-payout-ips", business.keyId, "--ips", "203.0.113.7, 10.0.0.0/8", "--json"],
        env,
      );
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), {
        keyId: business.keyId,
        payoutIps: ["203.0.113.7", "10.0.0.0/8"],
      });
      const refused = await runVas(["key", "set-payout-ips", business.keyId, "--ips", "10.0.0.0/40"], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /10\.0\.0\.0\/40 is not an IP address or a CIDR range/);
      assert.deepEqual(await h.services.payoutSettings.keyPayoutIps(business.keyId), [
        "203.0.113.7",
        "10.0.0.0/8",
      ]);
      const any = await runVas(["key", "set-payout-ips", business.keyId, "--any"], env);
      assert.match(any.stdout, /sends payouts from any address/);
      assert.equal(await h.services.payoutSettings.keyPayoutIps(business.keyId), null);
    });
  });
}
