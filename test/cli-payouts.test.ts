import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Payout } from "../src/core/api-types.js";
import { DEFAULT_PAYOUT_FEE_TIERS } from "../src/ledger/payout-fees.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

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

  describe(`vas payouts list on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let business: TestBusiness;
    let other: TestBusiness;
    let env: NodeJS.ProcessEnv;
    const made: Payout[] = [];
    before(async () => {
      // The sandbox's bank finishes a payout as soon as it is asked.
      h = await createHarness({ dialect, masterKey, env: { SANDBOX_PAYOUT_SETTLE_MS: "0" } });
      business = await h.createBusiness({ name: "Listed Ltd" });
      other = await h.createBusiness({ name: "Elsewhere Ltd" });
      env = cliEnv(h, masterKey);
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      const { accountNumber } = generated.json().data;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount: 1_000_000 },
        as: business,
      });
      assert.equal(paid.statusCode, 201, paid.body);
      for (const [outcome, amount] of [
        ["successful", 12_345],
        ["failed", 6_789],
      ] as const) {
        const to = SANDBOX_PAYEES.find((payee) => payee.outcome === outcome);
        assert.ok(to, outcome);
        const response = await h.request({
          url: `${API}/payouts`,
          body: { amount, bankCode: to.bankCode, accountNumber: to.accountNumber },
          as: business,
          headers: { "idempotency-key": randomUUID() },
        });
        assert.equal(response.statusCode, 202, response.body);
        made.push(response.json().data);
      }
      for (let pass = 0; pass < 2; pass++) await h.services.payoutTracker.run();
    });
    after(() => h.close());

    /** The business's payouts as GET /payouts answers them (the same listing). */
    const api = async (query = "") => {
      const response = await h.request({ url: `${API}/payouts${query}`, as: business });
      assert.equal(response.statusCode, 200, response.body);
      const { data, pagination } = response.json() as { data: Payout[]; pagination: Record<string, number> };
      return { data, pagination };
    };

    test("a table of the business's payouts, filtered as GET /payouts filters them", async () => {
      const [paid, failed] = (await api()).data;
      assert.deepEqual(
        [paid?.id, paid?.status, failed?.id, failed?.status].sort(),
        [made[0]?.id, "successful", made[1]?.id, "failed"].sort(),
      );
      const successful = (await api("?status=successful")).data[0] as Payout;
      assert.match(successful.sessionId ?? "", /^\d{30}$/);

      const all = await runVas(["payouts", "list", "--business", business.businessId], env);
      assert.equal(all.code, 0, all.stderr);
      const lines = all.stdout.trimEnd().split("\n");
      assert.match(lines[0] ?? "", /^id +createdAt +amount +fee +charges +status +to +sessionId +refundOf$/);
      assert.equal(lines.length, 4, all.stdout);
      assert.ok(lines.some((line) => line.includes(successful.id) && line.includes("NGN 123.45")));
      assert.ok(
        lines.some((line) => line.includes(successful.sessionId ?? "-") && / successful /.test(line)),
      );
      assert.ok(lines.some((line) => line.includes(made[1]?.id ?? "-") && / failed /.test(line)));
      assert.equal(lines[3], "Page 1 of 1, 2 payouts in all.");

      const bySession = await runVas(
        [
          "payouts",
          "list",
          "--business",
          business.businessId,
          "--session-id",
          successful.sessionId ?? "",
          "--json",
        ],
        env,
      );
      assert.equal(bySession.code, 0, bySession.stderr);
      assert.deepEqual(JSON.parse(bySession.stdout), await api(`?sessionId=${successful.sessionId}`));
      assert.deepEqual(
        JSON.parse(bySession.stdout).data.map((p: Payout) => p.id),
        [successful.id],
      );
      const failedOnly = await runVas(
        ["payouts", "list", "--business", business.businessId, "--status", "failed", "--json"],
        env,
      );
      assert.deepEqual(
        JSON.parse(failedOnly.stdout).data.map((p: Payout) => p.id),
        [made[1]?.id],
      );
      const one = await runVas(["payouts", "list", "--business", business.businessId, "--limit", "1"], env);
      assert.equal(one.code, 0, one.stderr);
      assert.match(one.stdout, /Page 1 of 2, 2 payouts in all\.\n$/);
      assert.equal(one.stdout.trimEnd().split("\n").length, 3, one.stdout);

      const none = await runVas(["payouts", "list", "--business", other.businessId], env);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(none.stdout, "(none)\n");
    });

    test("bad options are usage errors, an unknown business an error", async () => {
      for (const [args, message] of [
        [["--session-id", "12345"], /--session-id must be a NIP session id: 30 digits/],
        [["--status", "lost"], /--status must be pending, successful, failed, reversed/],
        [["--limit", "0"], /--limit must be a whole number from 1 to 100/],
        [[], /--business is required/],
      ] as const) {
        const business_ = args.length === 0 ? [] : ["--business", business.businessId];
        const refused = await runVas(["payouts", "list", ...business_, ...args], env);
        assert.equal(refused.code, 2, refused.stdout);
        assert.match(refused.stderr, message);
      }
      const unknown = await runVas(["payouts", "list", "--business", randomUUID()], env);
      assert.equal(unknown.code, 1, unknown.stdout);
    });
  });
}
