import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { CLI } from "../src/core/actor.js";
import type { Settlement, SettlementTerms } from "../src/core/api-types.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { ROOT } from "./helpers/cli-suite.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf } from "./helpers/harness.js";

// Settlement from the CLI against a server's database: the account (named by the bank), the
// schedule, a run and the list; and two `vas settlement run` processes racing for one business's
// money, on each database, settling it once.

const execFileAsync = promisify(execFile);
const PAID = SANDBOX_PAYEES.find((payee) => payee.outcome === "successful");

for (const dialect of DIALECTS) {
  describe(`vas settlement on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      // No cool-off here: the rule itself is tested in settlements.test.ts.
      h = await createHarness({ dialect, masterKey, env: { SETTLEMENT_COOL_OFF_HOURS: "0" } });
      env = { ...cliEnv(h, masterKey), SETTLEMENT_COOL_OFF_HOURS: "0" };
    });
    after(() => h.close());

    async function funded(name: string, amount: number) {
      const created = await h.createBusiness({ name });
      const forBusiness = { businessId: created.businessId, businessName: created.name };
      const account = await h.services.accounts.generatePermanent(forBusiness, CLI, permanentInputOf());
      await h.services.collections.sandboxTransfer(forBusiness, {
        accountNumber: account.account.accountNumber,
        amount,
      });
      return forBusiness;
    }

    test("an operator sets the account and the schedule, runs a settlement and lists it", async () => {
      assert.ok(PAID);
      const { businessId } = await funded("Cli Settles Ltd", 2_000_000);
      const none = await runVas(["settlement", "run", "--business", businessId], env);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no settlement account/);
      const bad = await runVas(
        [
          "business",
          "set-settlement-account",
          businessId,
          "--bank-code",
          PAID.bankCode,
          "--account-number",
          "12",
        ],
        env,
      );
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /accountNumber must be a string of exactly 10 digits/);
      const set = await runVas(
        [
          ...["business", "set-settlement-account", businessId],
          ...["--bank-code", PAID.bankCode, "--account-number", PAID.accountNumber, "--json"],
        ],
        env,
      );
      assert.equal(set.code, 0, set.stderr);
      const terms = JSON.parse(set.stdout) as SettlementTerms & { businessId: string };
      assert.equal(terms.account?.accountName, PAID.accountName);
      const schedule = await runVas(
        ["business", "set-settlement-schedule", businessId, "--schedule", "daily", "--at", "25:00"],
        env,
      );
      assert.notEqual(schedule.code, 0);
      assert.match(schedule.stderr, /HH:MM/);
      const daily = await runVas(
        [
          ...["business", "set-settlement-schedule", businessId],
          ...["--schedule", "daily", "--at", "17:30", "--reserve", "50000"],
        ],
        env,
      );
      assert.equal(daily.code, 0, daily.stderr);
      assert.match(daily.stdout, /daily at 17:30 \(Africa\/Lagos\); reserve NGN 500\.00/);

      const run = await runVas(["settlement", "run", "--business", businessId, "--json"], env);
      assert.equal(run.code, 0, run.stderr);
      const settlement = JSON.parse(run.stdout) as Settlement;
      // NGN 20,000 less the NGN 500 reserve: NGN 19,475 and NGN 25 of fee.
      assert.deepEqual([settlement.amount, settlement.fee, settlement.trigger], [1_947_500, 2_500, "manual"]);
      const listed = await runVas(["settlement", "list", "--business", businessId], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(listed.stdout.includes(settlement.id));
      assert.match(listed.stdout, /NGN 19,475\.00 \(fee NGN 25\.00\)\s+pending\s+manual\s+1 transaction/);
    });

    test("two processes running a settlement of one business at once settle its money once", async () => {
      assert.ok(PAID);
      const forBusiness = await funded("Raced Settles Ltd", 3_000_000);
      await h.services.settlementTerms.setAccount(forBusiness.businessId, CLI, PAID);
      const run = () =>
        execFileAsync(
          process.execPath,
          [
            ...["--import", "tsx", path.join(ROOT, "src/cli/main.ts")],
            ...["settlement", "run", "--business", forBusiness.businessId, "--json"],
          ],
          { env: { ...process.env, ...env }, cwd: ROOT },
        ).then(
          (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
          (failed: { code: number; stdout: string; stderr: string }) => failed,
        );
      const runs = await Promise.all([run(), run()]);
      const settled = runs.filter((r) => r.code === 0);
      assert.equal(settled.length, 1, runs.map((r) => r.stderr).join("\n"));
      const refused = runs.find((r) => r.code !== 0);
      assert.match(refused?.stderr ?? "", /does not cover|available balance/);
      const listed = await h.services.settlements.list(forBusiness, {
        page: 1,
        limit: 10,
      });
      assert.equal(listed.items.length, 1);
      assert.equal((await h.services.collections.balance(forBusiness)).available, 0);
    });
  });
}
