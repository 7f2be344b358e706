import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CLI } from "../src/core/actor.js";
import type { Balance, Payout, Transaction } from "../src/core/api-types.js";
import { formatNaira } from "../src/ledger/kobo.js";
import { remittanceReport } from "../src/ledger-audit/charges.js";
import { verifyLedger } from "../src/ledger-audit/verify.js";
import { ledgerBalances } from "../src/storage/ledger-repository.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  type Harness,
  permanentInputOf,
  type TestBusiness,
  verifyBusiness,
} from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { notification } from "./helpers/notifications.js";
import { pageClient } from "./helpers/page-client.js";
import { type Destination, payee, payoutTo, postPayout } from "./helpers/payouts.js";
import { signedInOperator } from "./helpers/two-factor.js";

const PASSWORD = "lagos harbour ferry at dawn 7";
const naira = (kobo: number) => formatNaira(kobo);

// Issue 46, item 4: the operator's charges schedule from the CLI, VAT and stamp duty posted with
// the fee on credits and payouts (held, posted, voided with the payout), `vas ledger verify` clean,
// and the month's remittance report equal to the month's charge postings after a few hundred
// seeded random movements.

const SUCCESSFUL = payee("successful");
const FAILED = payee("failed");
const SETTLE_MS = 2_000;

/** A small seeded generator (mulberry32): the same seed, the same movements. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

for (const dialect of DIALECTS) {
  describe(`charges on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let env: NodeJS.ProcessEnv;
    let clock = Date.parse("2026-11-10T09:00:00.000Z");
    before(async () => {
      h = await createHarness({
        dialect,
        masterKey,
        now: () => clock,
        env: { SANDBOX_PAYOUT_SETTLE_MS: String(SETTLE_MS) },
      });
      env = cliEnv(h, masterKey);
    });
    after(() => h.close());

    const vas = async (...args: string[]) => {
      const run = await runVas(["charges", ...args], env);
      return run;
    };

    async function business(name: string) {
      const made = await h.createBusiness({ name });
      await h.services.payoutSettings.setApiPayouts(made.businessId, true);
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ email: `${randomUUID()}@example.com` }),
        as: made,
      });
      assert.equal(generated.statusCode, 201, generated.body);
      const accountNumber = (generated.json() as { data: { accountNumber: string } }).data.accountNumber;
      return { ...made, accountNumber };
    }

    const credit = async (as: TestBusiness & { accountNumber: string }, amount: number) => {
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber: as.accountNumber, amount },
        as,
      });
      assert.equal(paid.statusCode, 201, paid.body);
      return (paid.json() as { data: Transaction }).data;
    };

    const payOut = (as: TestBusiness, to: Destination, amount: number) =>
      postPayout(h, as, payoutTo(to, amount));

    const bankSettles = async () => {
      await h.services.payoutTracker.run();
      clock += SETTLE_MS;
      await h.services.bankPayoutNotices?.run();
      clock += h.services.config.payouts.checkIntervalMs;
      await h.services.payoutTracker.run();
    };

    const clean = async () => {
      const report = await verifyLedger(h.storage.db);
      assert.deepEqual(report.drifts, [], "vas ledger verify finds no drift");
    };

    test("the schedule starts off; charges set takes the law's defaults and changes; bad input changes nothing", async () => {
      const shown = await vas("show", "--json");
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(JSON.parse(shown.stdout).vatBasisPoints, 0);
      const set = await vas("set", "--defaults", "--json");
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), {
        vatBasisPoints: 750,
        stampDutyKobo: 5_000,
        stampDutyThresholdKobo: 1_000_000,
        stampDutyOnPayouts: true,
        stampDutyOnCredits: false,
      });
      const text = await vas("show");
      assert.match(text.stdout, /VAT: 7\.5 % of the service's fees/);
      assert.match(
        text.stdout,
        /5000 kobo on transfers of 1000000 kobo and more, charged on payouts \(sender\)/,
      );
      for (const bad of [
        ["--vat", "7.555"],
        ["--vat", "101"],
        ["--stamp-duty-kobo", "-1"],
        ["--stamp-duty-on", "sometimes"],
        ["--stamp-duty-kobo", "2000000"],
      ]) {
        const refused = await vas("set", ...bad);
        assert.equal(refused.code, 2, `${bad.join(" ")}: ${refused.stdout}`);
      }
      assert.deepEqual(JSON.parse((await vas("show", "--json")).stdout), JSON.parse(set.stdout));
    });

    test("a credit's fee carries VAT (and the receiver's stamp duty when on), each on its own account", async () => {
      assert.equal((await vas("set", "--defaults", "--stamp-duty-on", "both")).code, 0);
      const b = await business("Charged Credits Ltd");
      await h.services.collections.setFee(b.businessId, { basisPoints: 150, capKobo: null });
      // NGN 15,000: fee 1.5 % = 22,500 kobo, VAT 7.5 % of it = 1,687.5, half up 1,688; stamp duty 5,000.
      const big = await credit(b, 1_500_000);
      assert.equal(big.fee, 22_500);
      assert.deepEqual(big.charges, [
        { kind: "vat", amount: 1_688 },
        { kind: "stamp_duty", amount: 5_000 },
      ]);
      assert.equal(big.netAmount, 1_500_000 - 22_500 - 1_688 - 5_000);
      // Below the threshold: VAT only (1,000 kobo fee 15, VAT 1.125 -> 1).
      const small = await credit(b, 1_000);
      assert.deepEqual(small.charges, [{ kind: "vat", amount: 1 }]);
      const balances = await ledgerBalances(h.storage.db, b.businessId);
      assert.equal(balances.vat_payable, 1_689);
      assert.equal(balances.stamp_duty_payable, 5_000);
      assert.equal(balances.revenue, 22_515);
      assert.equal(balances.available, big.netAmount + small.netAmount);
      await clean();
    });

    test("a payout's charges are held with its fee, posted when the bank pays, given back when it does not", async () => {
      assert.equal((await vas("set", "--defaults")).code, 0);
      const b = await business("Charged Payouts Ltd");
      await credit(b, 10_000_000);
      const start = await ledgerBalances(h.storage.db, b.businessId);
      // NGN 20,000: fee NGN 25 (2,500 kobo), VAT 187.5 -> 188, stamp duty NGN 50.
      const paid = await payOut(b, SUCCESSFUL, 2_000_000);
      assert.equal(paid.statusCode, 202, paid.body);
      const payout = (paid.json() as { data: Payout }).data;
      assert.equal(payout.fee, 2_500);
      assert.deepEqual(payout.charges, [
        { kind: "vat", amount: 188 },
        { kind: "stamp_duty", amount: 5_000 },
      ]);
      const held = await ledgerBalances(h.storage.db, b.businessId);
      assert.equal(held.available, start.available - 2_007_688);
      assert.equal(held.pending, 2_007_688);
      assert.equal(held.vat_payable, 0, "nothing owed before the bank pays");
      await bankSettles();
      const posted = await ledgerBalances(h.storage.db, b.businessId);
      assert.equal(posted.pending, 0);
      assert.equal(posted.paid_out, 2_000_000);
      assert.equal(posted.vat_payable, 188);
      assert.equal(posted.stamp_duty_payable, 5_000);
      // GET /balance answers them, and its sum still holds with them.
      const balance = (await h.request({ url: `${API}/balance`, as: b })).json().data as Balance;
      assert.deepEqual([balance.totalVat, balance.totalStampDuty], [188, 5_000]);
      assert.equal(
        balance.totalReceived,
        balance.available +
          balance.pending +
          balance.totalPaidOut +
          balance.totalFees +
          balance.totalVat +
          balance.totalStampDuty,
      );
      // Below the threshold no stamp duty; a failed payout gives everything back.
      const failed = await payOut(b, FAILED, 500_000);
      assert.equal(failed.statusCode, 202, failed.body);
      assert.deepEqual((failed.json() as { data: Payout }).data.charges, [{ kind: "vat", amount: 75 }]);
      await bankSettles();
      await bankSettles();
      const after = await ledgerBalances(h.storage.db, b.businessId);
      assert.equal(after.available, posted.available);
      assert.equal(after.vat_payable, 188);
      // The balance must cover the charges too.
      const tooMuch = await payOut(b, SUCCESSFUL, after.available - 5_000);
      assert.equal(tooMuch.statusCode, 422, tooMuch.body);
      assert.match(tooMuch.body, /stamp duty/);
      await clean();
    });

    test("the month's remittance report is the sum of its charge postings, after a few hundred random movements", async () => {
      clock = Date.parse("2026-11-20T09:00:00.000Z");
      const random = seeded(46_4);
      const firms = [await business("Random One Ltd"), await business("Random Two Ltd")];
      const before = await remittanceReport(h.storage.db, "2026-11");
      assert.ok(before);
      const expected = { vat: before.vat, stampDuty: before.stampDuty };
      const december = { vat: 0, stampDuty: 0 };
      const payouts: Array<{ id: string; as: TestBusiness; month: typeof expected }> = [];
      for (let step = 0; step < 300; step++) {
        // The last movements fall after midnight in Lagos on 1 December (23:00 UTC on 30 November).
        if (step === 260) clock = Date.parse("2026-11-30T23:00:00.000Z");
        const month = step >= 260 ? december : expected;
        const firm = firms[random(2)] as (typeof firms)[number];
        if (step % 40 === 0) {
          const on = ["payouts", "credits", "both", "none"][random(4)] as string;
          assert.equal((await vas("set", "--vat", String(random(11)), "--stamp-duty-on", on)).code, 0);
          await h.services.collections.setFee(firm.businessId, { basisPoints: random(300), capKobo: null });
        }
        clock += 1_000;
        if (random(5) > 0) {
          const transaction = await credit(firm, 1 + random(3_000_000));
          for (const line of transaction.charges)
            month[line.kind === "vat" ? "vat" : "stampDuty"] += line.amount;
        } else {
          const response = await payOut(firm, random(4) === 0 ? FAILED : SUCCESSFUL, 1 + random(1_500_000));
          if (response.statusCode === 202) {
            const payout = (response.json() as { data: Payout }).data;
            payouts.push({ id: payout.id, as: firm, month });
            await bankSettles();
          }
        }
      }
      for (const { id, as, month } of payouts) {
        const got = await h.request({ url: `${API}/payouts/${id}`, as });
        const payout = (got.json() as { data: Payout }).data;
        assert.notEqual(payout.status, "pending", "every payout finished");
        if (payout.status !== "successful") continue;
        for (const line of payout.charges) month[line.kind === "vat" ? "vat" : "stampDuty"] += line.amount;
      }
      const report = await remittanceReport(h.storage.db, "2026-11");
      assert.ok(report);
      assert.ok(expected.vat > before.vat && expected.stampDuty > before.stampDuty, "the run charged both");
      assert.deepEqual({ vat: report.vat, stampDuty: report.stampDuty }, expected);
      assert.equal(report.total, expected.vat + expected.stampDuty);
      const next = await remittanceReport(h.storage.db, "2026-12");
      assert.deepEqual({ vat: next?.vat, stampDuty: next?.stampDuty }, december);
      // The per-business statement adds up to the report.
      const cli = await runVas(["charges", "report", "--month", "2026-11", "--json"], env);
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(JSON.parse(cli.stdout).total, report.total);
      let sum = 0;
      for (const firm of [...firms]) {
        const statement = await runVas(
          ["charges", "statement", firm.businessId, "--month", "2026-11", "--json"],
          env,
        );
        assert.equal(statement.code, 0, statement.stderr);
        sum += JSON.parse(statement.stdout).total;
      }
      const others = report.businesses
        .filter((b) => !firms.some((f) => f.businessId === b.businessId))
        .reduce((total, b) => total + b.total, 0);
      assert.equal(sum + others, report.total);
      await clean();
    });

    test("the console shows what to remit and each business's part; an admin sets the schedule, a reviewer may not", async () => {
      const report = await remittanceReport(h.storage.db, "2026-11");
      assert.ok(report && report.total > 0);
      const now = () => clock;
      const { client: admin } = await signedInOperator(
        h.services,
        h.app,
        `admin.${dialect}@charges.example`,
        PASSWORD,
        { now },
      );
      const shown = await admin.get("/admin/charges?month=2026-11");
      assert.equal(shown.response.statusCode, 200, shown.response.body);
      const body = shown.response.body;
      assert.match(body, /To remit for 2026-11/);
      const badMonth = await admin.get("/admin/charges?month=2026-13");
      assert.equal(badMonth.response.statusCode, 400);
      assert.match(badMonth.response.body, /A month is written as year and month/);
      assert.ok(body.includes(`<strong>${naira(report.total)}</strong>`), "the month's total");
      assert.ok(body.includes(naira(report.vat)) && body.includes(naira(report.stampDuty)));
      for (const b of report.businesses) assert.ok(body.includes(`/admin/businesses/${b.businessId}`));
      const saved = await admin.post("/admin/charges", {
        _csrf: shown.token ?? "",
        vat: "7.5",
        stampDuty: "50",
        threshold: "10,000",
        on: "payouts",
      });
      assert.equal(saved.statusCode, 303, saved.body);
      assert.deepEqual(await h.services.charges.schedule(), {
        vatBasisPoints: 750,
        stampDutyKobo: 5_000,
        stampDutyThresholdKobo: 1_000_000,
        stampDutyOnPayouts: true,
        stampDutyOnCredits: false,
      });
      const refused = await admin.post("/admin/charges", {
        _csrf: shown.token ?? "",
        vat: "7.5",
        stampDuty: "20,000",
        threshold: "10,000",
        on: "payouts",
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /the stamp duty cannot be more than its threshold/);
      const { client: reviewer } = await signedInOperator(
        h.services,
        h.app,
        `reviewer.${dialect}@charges.example`,
        PASSWORD,
        { role: "reviewer", now },
      );
      const seen = await reviewer.get("/admin/charges?month=2026-11");
      assert.equal(seen.response.statusCode, 200);
      const denied = await reviewer.post("/admin/charges", {
        _csrf: seen.token ?? "",
        vat: "0",
        stampDuty: "50",
        threshold: "10,000",
        on: "none",
      });
      assert.equal(denied.statusCode, 403);
      assert.equal((await h.services.charges.schedule()).vatBasisPoints, 750, "unchanged");
    });

    test("a business reads its monthly statement of charges in the dashboard", async () => {
      clock = Date.parse("2026-11-25T10:00:00.000Z");
      assert.equal((await vas("set", "--defaults", "--stamp-duty-on", "both")).code, 0);
      const email = `finance.${dialect}@statement.example`;
      const { business: who } = await signedUpBusiness(h.services, {
        businessName: "Statement Foods",
        email,
        password: PASSWORD,
      });
      await verifyBusiness(h.services, who.businessId);
      await h.services.collections.setFee(who.businessId, { basisPoints: 100, capKobo: null });
      const made = await h.services.accounts.generatePermanent(
        who,
        CLI,
        permanentInputOf({ email: `c.${dialect}@statement.example` }),
      );
      const number = made.account.accountNumber;
      // NGN 20,000 in: fee 20,000 kobo, VAT 1,500, stamp duty 5,000 (the receiver's, turned on).
      await h.services.collections.receive(notification(number, 2_000_000, new Date(clock).toISOString()));
      const client = pageClient(h.app);
      assert.equal((await client.signIn("/dashboard", email, PASSWORD)).statusCode, 303);
      const shown = await client.get("/dashboard/charges?month=2026-11");
      assert.equal(shown.response.statusCode, 200, shown.response.body);
      const text = shown.response.body.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
      assert.match(text, /VAT on fees NGN 15\.00 NGN 0\.00 NGN 15\.00/);
      assert.match(text, /Stamp duty NGN 50\.00 NGN 0\.00 NGN 50\.00/);
      assert.match(text, /Total NGN 65\.00/);
      const october = await client.get("/dashboard/charges?month=2026-10");
      assert.match(october.response.body.replace(/<[^>]+>/g, " ").replace(/\s+/g, " "), /Total NGN 0\.00/);
      // A month that is not one is said, not guessed at.
      const bad = await client.get("/dashboard/charges?month=2026-13");
      assert.equal(bad.response.statusCode, 400);
      assert.match(bad.response.body, /role="alert">A month is written as year and month, like 2026-11/);
    });
  });
}
