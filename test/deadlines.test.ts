import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { deadlinePass } from "../src/compose/jobs.js";
import type { Payout } from "../src/core/api-types.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { notification } from "./helpers/notifications.js";
import { makePayout, payee } from "./helpers/payouts.js";
import { signedInOperator } from "./helpers/two-factor.js";

// Issue 46, item 3: the CBN's deadlines watched, on each database. A credit whose bank paid time
// is more than DEADLINE_CREDIT_MINUTES before the service applied it, and a failed or reversed
// payout whose money came back more than DEADLINE_RETURN_HOURS after its hold (or is not back by
// then), show in the metrics, the console's Deadlines page and one warning in the log each; the
// ones on time show nowhere. The clock is driven; the deadlines pass is the server's job's.

const HOUR = 3_600_000;
const SETTLE_MS = 1_000;
const REVERSE_MS = 2_000;
const OPERATOR_PASSWORD = "deadlines are the bank's own 46";

interface LogLine {
  level: number;
  msg: string;
  code?: string;
  transactionId?: string;
  payoutId?: string;
  sessionId?: string;
  elapsedMs?: number;
  limitMs?: number;
}

for (const dialect of DIALECTS) {
  describe(`deadlines watched on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let accountNumber: string;
    let clock = Date.UTC(2026, 11, 1, 9);
    const lines: LogLine[] = [];

    before(async () => {
      h = await createHarness({
        dialect,
        now: () => clock,
        logStream: { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
        env: {
          SANDBOX_PAYOUT_SETTLE_MS: String(SETTLE_MS),
          SANDBOX_PAYOUT_REVERSE_MS: String(REVERSE_MS),
          SIGN_IN_RATE_LIMIT_PER_MIN: "0",
        },
      });
      business = await h.createBusiness({ name: "Deadline Foods" });
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      assert.equal(generated.statusCode, 201, generated.body);
      accountNumber = (generated.json() as { data: { accountNumber: string } }).data.accountNumber;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount: 5_000_000 },
        as: business,
      });
      assert.equal(paid.statusCode, 201, paid.body);
    });
    after(() => h?.close());

    const pass = () => deadlinePass(h.services, h.app.log);
    const warnings = (code: string) => lines.filter((line) => line.level === 40 && line.code === code);
    /** A sample's value at /metrics (`vas_deadline_misses_total{kind="credit"}`); 0 when absent. */
    const metric = async (series: string) => {
      const text = (await h.app.inject({ method: "GET", url: "/metrics" })).body;
      const line = text.split("\n").find((l) => l.startsWith(`${series} `));
      return line === undefined ? 0 : Number(line.slice(series.length + 1));
    };
    const pay = (outcome: string, amount: number) => makePayout(h, business, payee(outcome), amount);
    const status = async (id: string) => {
      const response = await h.request({ url: `${API}/payouts/${id}`, as: business });
      return (response.json() as { data: Payout }).data.status;
    };
    /** Lets the sandbox's time pass and the bank tell the service (its notifications). */
    const bankTells = async (ms: number) => {
      clock += ms;
      await h.services.bankPayoutNotices?.run();
    };

    test("a credit applied more than 4 minutes after the bank's paid time is counted, listed and logged once", async () => {
      const late = notification(accountNumber, 250_000, new Date(clock - 9 * 60_000).toISOString());
      const onTime = notification(accountNumber, 120_000, new Date(clock - 3 * 60_000).toISOString());
      const atTheLimit = notification(accountNumber, 130_000, new Date(clock - 4 * 60_000).toISOString());
      for (const sent of [late, onTime, atTheLimit]) await h.services.collections.receive(sent);
      await pass();
      const found = warnings("CREDIT_APPLIED_LATE");
      assert.deepEqual(
        found.map((line) => line.sessionId),
        [late.sessionId],
      );
      assert.equal(found[0]?.elapsedMs, 9 * 60_000);
      assert.equal(found[0]?.limitMs, 4 * 60_000);
      assert.equal(await metric('vas_deadline_misses_total{kind="credit"}'), 1);
      // Found once: the next pass (and a repeated notification) adds nothing.
      await h.services.collections.receive(late);
      clock += 60_000;
      await pass();
      assert.equal(warnings("CREDIT_APPLIED_LATE").length, 1);
      assert.equal(await metric('vas_deadline_misses_total{kind="credit"}'), 1);
      const page = await h.services.deadlines.list("credit", "all", 1, 20);
      assert.deepEqual(
        page.items.map((item) => [item.sessionId, item.amount, item.lateMs]),
        [[late.sessionId, 250_000, 9 * 60_000]],
      );
    });

    test("two passes at once (two processes' jobs) record and log a late credit once", async () => {
      const later = notification(accountNumber, 99_000, new Date(clock - HOUR).toISOString());
      await h.services.collections.receive(later);
      await Promise.all([pass(), pass()]);
      const found = warnings("CREDIT_APPLIED_LATE").filter((line) => line.sessionId === later.sessionId);
      assert.equal(found.length, 1);
      assert.equal(await metric('vas_deadline_misses_total{kind="credit"}'), 2);
      assert.equal((await h.services.deadlines.list("credit", "all", 1, 20)).pagination.total, 2);
    });

    test("a failed payout whose money is not back in 24 hours is at risk, then back late: one warning", async () => {
      // On time: held, sent, failed within seconds.
      const quick = await pay("failed", 10_000);
      await h.services.payoutTracker.run();
      await bankTells(SETTLE_MS + 1);
      assert.equal(await status(quick.id), "failed");
      // Late: held, sent, and the bank says nothing for 25 hours.
      const slow = await pay("failed", 20_000);
      clock += 25 * HOUR;
      await pass();
      const overdue = warnings("PAYOUT_RETURN_OVERDUE");
      assert.deepEqual(
        overdue.map((line) => line.payoutId),
        [slow.id],
      );
      assert.equal(await metric("vas_deadline_returns_at_risk"), 1);
      assert.equal(await metric('vas_deadline_misses_total{kind="return"}'), 1);
      await h.services.payoutTracker.run();
      await bankTells(SETTLE_MS + 1);
      assert.equal(await status(slow.id), "failed");
      await pass();
      assert.equal(warnings("PAYOUT_RETURN_OVERDUE").length, 1, "one warning for the payout");
      assert.equal(warnings("PAYOUT_RETURNED_LATE").length, 0);
      assert.ok(lines.some((line) => line.msg === "an overdue payout's money is back with the business"));
      assert.equal(await metric("vas_deadline_returns_at_risk"), 0);
      assert.equal(await metric('vas_deadline_misses_total{kind="return"}'), 1);
      const back = await h.services.deadlines.list("return", "ended", 1, 20);
      assert.deepEqual(
        back.items.map((item) => [item.itemId, item.status, item.endedAt !== null]),
        [[slow.id, "failed", true]],
      );
      assert.ok((back.items[0]?.lateMs ?? 0) > 25 * HOUR);
      const slowNow = (await h.request({ url: `${API}/payouts/${slow.id}`, as: business })).json() as {
        data: Payout;
      };
      assert.equal(
        back.items[0]?.sessionId,
        slowNow.data.sessionId,
        "the payout's NIP session id, to trace it",
      );
    });

    test("a reversed payout whose money came back after 24 hours is found from its reversal", async () => {
      const reversed = await pay("reversed", 30_000);
      // Not yet sent when the clock passes the deadline: no pass sees it pending in between.
      clock += 26 * HOUR;
      await h.services.payoutTracker.run();
      await bankTells(SETTLE_MS + 1);
      await bankTells(REVERSE_MS + 1);
      assert.equal(await status(reversed.id), "reversed");
      await pass();
      const found = warnings("PAYOUT_RETURNED_LATE");
      assert.deepEqual(
        found.map((line) => line.payoutId),
        [reversed.id],
      );
      assert.equal(await metric('vas_deadline_misses_total{kind="return"}'), 2);
      await pass();
      assert.equal(warnings("PAYOUT_RETURNED_LATE").length, 1);
    });

    test("a payout pending past 24 hours that is paid after all leaves the list; reversed later, it is back late without a second warning", async () => {
      const paid = await pay("reversed", 15_000);
      clock += 25 * HOUR;
      await pass();
      assert.equal(await metric("vas_deadline_returns_at_risk"), 1);
      const warned = warnings("PAYOUT_RETURN_OVERDUE").filter((line) => line.payoutId === paid.id);
      assert.equal(warned.length, 1);
      await h.services.payoutTracker.run();
      await bankTells(SETTLE_MS + 1);
      assert.equal(await status(paid.id), "successful");
      await pass();
      assert.equal(await metric("vas_deadline_returns_at_risk"), 0);
      assert.equal((await h.services.deadlines.list("return", "open", 1, 20)).pagination.total, 0);
      assert.equal((await h.services.deadlines.list("return", "all", 1, 20)).pagination.total, 2);
      await bankTells(REVERSE_MS + 1);
      assert.equal(await status(paid.id), "reversed");
      await pass();
      const lateLines = [...warnings("PAYOUT_RETURN_OVERDUE"), ...warnings("PAYOUT_RETURNED_LATE")];
      assert.equal(lateLines.filter((line) => line.payoutId === paid.id).length, 1, "one warning");
      const back = await h.services.deadlines.list("return", "ended", 1, 20);
      const reversedLate = back.items.find((item) => item.itemId === paid.id);
      assert.equal(reversedLate?.status, "reversed");
      assert.ok((reversedLate?.lateMs ?? 0) > 25 * HOUR);
      assert.equal(back.pagination.total, 3);
      assert.equal(await metric('vas_deadline_misses_total{kind="return"}'), 3, "counted once, when found");
    });

    test("the console's Deadlines page lists each late item with its times and the thresholds", async () => {
      const { client: operator } = await signedInOperator(
        h.services,
        h.app,
        `ops.deadlines.${dialect}@console.example`,
        OPERATOR_PASSWORD,
        { now: () => clock },
      );
      const credits = await operator.get("/admin/deadlines");
      assert.equal(credits.response.statusCode, 200, credits.response.body);
      const body = credits.response.body;
      assert.match(body, /more than <strong>4 minutes<\/strong>/);
      assert.match(body, /more than <strong>24 hours<\/strong>/);
      const late = (await h.services.deadlines.list("credit", "all", 1, 20)).items[0];
      assert.ok(late?.sessionId);
      assert.match(body, new RegExp(`<code>${late.sessionId}</code>`));
      assert.match(body, /Deadline Foods/);
      assert.match(body, /NGN 2,500\.00/);
      assert.match(body, /9 min<br><span class="help">5 min past the limit/);
      assert.equal(
        (body.match(/<tbody>[\s\S]*?<\/tbody>/)?.[0].match(/<tr>/g) ?? []).length,
        2,
        "only the late credits",
      );
      const returns = await operator.get("/admin/deadlines?show=returned-late");
      assert.equal(returns.response.statusCode, 200);
      const listed = [...returns.response.body.matchAll(/href="\/admin\/payouts\/(po_[0-9a-f]{32})"/g)].map(
        (m) => m[1],
      );
      assert.equal(listed.length, 3, "the failed one and the two reversed ones, not the quick one");
      const bad = await operator.get("/admin/deadlines?show=everything");
      assert.equal(bad.response.statusCode, 400);
      assert.match(bad.response.body, /Show must be one of credits, returns, returned-late, not-back/);
      const badPage = await operator.get("/admin/deadlines?page=0");
      assert.equal(badPage.response.statusCode, 400);
      const anonymous = await h.app.inject({ method: "GET", url: "/admin/deadlines" });
      assert.notEqual(anonymous.statusCode, 200, "operators only");
    });
  });
}
