import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CLI } from "../src/core/actor.js";
import type { Settlement } from "../src/core/api-types.js";
import { check, listQuery } from "../src/core/validation.js";
import { eventQuery } from "../src/events/event-service.js";
import { verifyLedger } from "../src/ledger-audit/verify.js";
import { payoutQuery } from "../src/payouts/validation.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, type Harness, permanentInputOf } from "./helpers/harness.js";

// Settlement (issue 26, item 6) on both databases: the account named by the bank, audited and
// announced, with its cool-off; a settlement of the available balance less the reserve and its
// own fee, covering the transactions since the last one that did not fail; a daily schedule at
// its hour in Africa/Lagos run by two processes at once, settling once; instant settlement; a
// failed settlement giving the money back; and the ledger clean at the end.

const payee = (outcome: string) => {
  const found = SANDBOX_PAYEES.find((candidate) => candidate.outcome === outcome);
  assert.ok(found);
  return found;
};
const PAID = payee("successful");
const DORMANT = payee("failed");
const UNRESOLVABLE = payee("unresolvable");
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The code of a refusal the domain threw. */
async function refusedWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: { code?: string; message: string }) => {
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

for (const dialect of DIALECTS) {
  describe(`settlement on ${dialect}`, () => {
    let h: Harness;
    let other: Harness;
    // 2026-11-20 10:00 in Lagos; the clock only moves forward.
    let clock = Date.parse("2026-11-20T09:00:00Z");
    const now = () => clock;
    let serial = 0;

    before(async () => {
      const env = { SANDBOX_PAYOUT_SETTLE_MS: "0", SANDBOX_PAYOUT_REVERSE_MS: "0" };
      const masterKey = randomBytes(32);
      h = await createHarness({ dialect, now, env, masterKey });
      // A second process on the same database, to run the schedule at the same time.
      other = await createHarness({ dialect, database: h.database, now, env, masterKey });
    });
    after(async () => {
      await other?.close();
      await h?.close();
    });

    /**
     * Runs `work` in both processes: at once on PostgreSQL (two connections racing for the rows);
     * one after the other on SQLite, whose one writer serialises them anyway, and whose synchronous
     * driver, waiting on the file's lock, would stall the other connection of this one test process.
     * (cli-settlements.test.ts races two real processes on both databases.)
     */
    const bothProcesses = <T>(work: (services: Harness["services"]) => Promise<T>): Promise<T[]> =>
      dialect === "sqlite"
        ? (async () => [await work(h.services), await work(other.services)])()
        : Promise.all([work(h.services), work(other.services)]);

    /** The next instant at `hhmm` in Africa/Lagos after the clock. */
    const nextLagos = (hhmm: string) => {
      const [hours = 0, minutes = 0] = hhmm.split(":").map(Number);
      let at = Date.UTC(
        new Date(clock).getUTCFullYear(),
        new Date(clock).getUTCMonth(),
        new Date(clock).getUTCDate(),
        hours - 1,
        minutes,
      );
      while (at <= clock) at += DAY_MS;
      return at;
    };

    async function business() {
      serial++;
      const created = await h.createBusiness({ name: `Settling ${serial} Ltd` });
      const forBusiness = { businessId: created.businessId, businessName: created.name };
      const account = await h.services.accounts.generatePermanent(forBusiness, CLI, permanentInputOf());
      const fund = async (amount: number) =>
        (
          await h.services.collections.sandboxTransfer(forBusiness, {
            accountNumber: account.account.accountNumber,
            amount,
          })
        ).transaction;
      const balance = () => h.services.collections.balance(forBusiness);
      const events = async (type: string) =>
        (await h.services.events.list(forBusiness, check(eventQuery, { type, limit: "100" }))).items;
      return { created, forBusiness, fund, balance, events };
    }

    /** The bank finishes what it was asked (the sandbox settles at once). */
    async function bankCatchesUp(): Promise<void> {
      await h.services.payoutTracker.run();
      await h.services.bankPayoutNotices?.run();
    }

    test("an account named by the bank, audited and announced; nothing settles to it during its cool-off", async () => {
      const { created, forBusiness, fund, balance, events } = await business();
      const { settlements, settlementTerms } = h.services;
      await fund(3_000_000);
      await refusedWith(settlements.settle(forBusiness), "SETTLEMENT_ACCOUNT_MISSING");
      await refusedWith(
        settlementTerms.setAccount(forBusiness.businessId, CLI, UNRESOLVABLE),
        "ACCOUNT_NOT_RESOLVED",
      );
      await refusedWith(
        settlementTerms.setAccount(forBusiness.businessId, CLI, {
          bankCode: PAID.bankCode,
          accountNumber: "123",
        }),
        "VALIDATION_FAILED",
        /accountNumber must be a string of exactly 10 digits/,
      );
      const terms = await settlementTerms.setAccount(forBusiness.businessId, CLI, PAID);
      assert.deepEqual(terms.account, {
        bankCode: PAID.bankCode,
        bankName: PAID.bankName,
        accountNumber: PAID.accountNumber,
        accountName: PAID.accountName,
        setAt: new Date(clock).toISOString(),
        usableFrom: new Date(clock + DAY_MS).toISOString(),
      });
      const [announced] = await events("settlement_account.updated");
      assert.deepEqual(announced?.data, { ...terms.account, previous: null });
      const audited = await h.storage.db
        .selectFrom("audit_log")
        .select(["action", "actor_type"])
        .where("business_id", "=", forBusiness.businessId)
        .where("action", "=", "settlement_account.updated")
        .execute();
      assert.deepEqual(audited, [{ action: "settlement_account.updated", actor_type: "cli" }]);
      // The same account again is no change: no second event.
      await settlementTerms.setAccount(forBusiness.businessId, CLI, PAID);
      assert.equal((await events("settlement_account.updated")).length, 1);

      await refusedWith(
        settlements.settle(forBusiness),
        "SETTLEMENT_ACCOUNT_COOLING_OFF",
        new RegExp(`before ${new Date(clock + DAY_MS).toISOString()}`),
      );
      clock += DAY_MS;
      await fund(2_000_000);
      const settlement = await settlements.settle(forBusiness);
      // NGN 50,000 available: NGN 49,975 and the NGN 25 fee.
      assert.deepEqual(
        [
          settlement.amount,
          settlement.fee,
          settlement.status,
          settlement.trigger,
          settlement.transactionCount,
        ],
        [4_997_500, 2_500, "pending", "manual", 2],
      );
      assert.equal(settlement.accountName, PAID.accountName);
      assert.ok(settlement.from && settlement.to && settlement.from < settlement.to);
      assert.deepEqual([(await balance()).available, (await balance()).pending], [0, 5_000_000]);
      await refusedWith(settlements.settle(forBusiness), "NOTHING_TO_SETTLE");

      await bankCatchesUp();
      const settled = await settlements.get(forBusiness, settlement.id);
      assert.equal(settled.status, "successful");
      const [successful] = await events("settlement.successful");
      assert.equal((successful?.data as { id: string } | undefined)?.id, settlement.payoutId);
      const covered = await settlements.transactions(forBusiness, settlement.id, check(listQuery, {}));
      assert.deepEqual(
        covered.items.map((t) => t.amount),
        [2_000_000, 3_000_000],
      );

      clock += HOUR_MS;
      const paid = await fund(1_000_000);
      const next = await settlements.settle(forBusiness);
      assert.deepEqual([next.transactionCount, next.from, next.to], [1, paid.createdAt, paid.createdAt]);
      const listed = await settlements.list(forBusiness, check(payoutQuery, {}));
      assert.deepEqual(
        listed.items.map((s: Settlement) => s.id),
        [next.id, settlement.id],
      );
      await refusedWith(
        settlements.get(forBusiness, "stl_00000000000000000000000000000000"),
        "SETTLEMENT_NOT_FOUND",
      );

      // The same over the API, and nothing of it to another business.
      const as = created;
      const page = await h.request({ url: `${API}/settlements?limit=1`, as });
      assert.equal(page.statusCode, 200, page.body);
      assert.deepEqual(page.json().pagination, { page: 1, limit: 1, total: 2, pages: 2 });
      assert.equal(page.json().data[0].id, next.id);
      const one = await h.request({ url: `${API}/settlements/${settlement.id}`, as });
      assert.deepEqual(one.json().data, await settlements.get(forBusiness, settlement.id));
      const lines = await h.request({
        url: `${API}/settlements/${settlement.id}/transactions?limit=1&page=2`,
        as,
      });
      assert.equal(lines.statusCode, 200, lines.body);
      assert.deepEqual(
        [lines.json().data.map((t: { amount: number }) => t.amount), lines.json().pagination.total],
        [[3_000_000], 2],
      );
      const successfulOnly = await h.request({ url: `${API}/settlements?status=successful`, as });
      assert.deepEqual(
        successfulOnly.json().data.map((s: Settlement) => s.id),
        [settlement.id],
      );
      // A successful settlement carries its transfer's NIP session id, and is found by it.
      const { sessionId } = one.json().data as Settlement;
      assert.match(sessionId ?? "", /^\d{30}$/);
      const bySession = await h.request({ url: `${API}/settlements?sessionId=${sessionId}`, as });
      assert.deepEqual(
        bySession.json().data.map((s: Settlement) => s.id),
        [settlement.id],
      );
      const stranger = (await business()).created;
      for (const url of [`/settlements/${settlement.id}`, `/settlements/${settlement.id}/transactions`]) {
        const theirs = await h.request({ url: `${API}${url}`, as: stranger });
        assert.equal(theirs.statusCode, 404);
        assert.equal(theirs.json().error.code, "SETTLEMENT_NOT_FOUND");
      }
      const malformed = await h.request({ url: `${API}/settlements/nope`, as });
      assert.equal(malformed.statusCode, 404);
      const badStatus = await h.request({ url: `${API}/settlements?status=lost`, as });
      assert.equal(badStatus.statusCode, 400);
    });

    test("daily at its hour in Africa/Lagos, once a day, whichever of two processes runs it", async () => {
      const { forBusiness, fund, balance } = await business();
      await h.services.settlementTerms.setAccount(forBusiness.businessId, CLI, PAID);
      await h.services.settlementTerms.setSchedule(forBusiness.businessId, CLI, {
        schedule: "daily",
        dailyAt: "17:00",
        reserve: 100_000,
      });
      clock = nextLagos("16:59") + DAY_MS;
      await fund(5_000_000);
      const both = () => bothProcesses((services) => services.settlements.runScheduled());
      const early = await both();
      assert.deepEqual(
        early.flatMap((pass) => pass.settled),
        [],
        "not before its hour",
      );
      clock = nextLagos("17:00");
      const passes = await both();
      const made = passes.flatMap((pass) => pass.settled).filter((s) => s.bankCode === PAID.bankCode);
      assert.equal(made.length, 1, "one settlement from two processes");
      assert.equal(made[0]?.trigger, "daily");
      // The reserve stays: NGN 1,000 of NGN 50,000; the fee comes out of the rest.
      assert.deepEqual([(await balance()).available, made[0]?.amount], [100_000, 4_897_500]);
      clock += HOUR_MS;
      await fund(1_000_000);
      const later = await both();
      assert.equal(later.flatMap((pass) => pass.settled).length, 0, "once a day");
      clock = nextLagos("17:00");
      const tomorrow = await both();
      assert.equal(tomorrow.flatMap((pass) => pass.settled).length, 1, "and again the next day");
    });

    test("instant: a credit settles as it arrives; a failed settlement gives the money back and its transactions are covered again", async () => {
      const { forBusiness, fund, balance, events } = await business();
      await h.services.settlementTerms.setAccount(forBusiness.businessId, CLI, DORMANT);
      await h.services.settlementTerms.setSchedule(forBusiness.businessId, CLI, { schedule: "instant" });
      clock += DAY_MS + 1;
      await fund(1_000_000);
      const passes = await bothProcesses((services) => services.settlements.runScheduled());
      const made = passes.flatMap((pass) => pass.settled);
      assert.equal(made.length, 1, "one settlement from two processes");
      await bankCatchesUp();
      assert.equal((await h.services.settlements.get(forBusiness, made[0]?.id ?? "")).status, "failed");
      assert.equal((await events("settlement.failed")).length, 1);
      assert.equal((await balance()).available, 1_000_000, "amount and fee back");

      // A new account, in its cool-off: the schedule passes the business over until it ends.
      await h.services.settlementTerms.setAccount(forBusiness.businessId, CLI, PAID);
      await fund(500_000);
      const waiting = await h.services.settlements.runScheduled();
      assert.ok(
        waiting.skipped.some((s) => s.businessId === forBusiness.businessId && /set recently/.test(s.reason)),
      );
      clock += DAY_MS + 1;
      const pass = await h.services.settlements.runScheduled();
      const settled = pass.settled.find((s) => s.bankCode === PAID.bankCode && s.transactionCount === 2);
      assert.ok(settled, "the failed settlement's transaction is covered again, with the new one");
      await bankCatchesUp();
      assert.equal((await balance()).available, 0);
      const report = await verifyLedger(h.storage.db);
      assert.deepEqual(report.drifts, []);
    });
  });
}
