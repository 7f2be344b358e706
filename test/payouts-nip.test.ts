import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Balance, Payout } from "../src/core/api-types.js";
import { verifyLedger } from "../src/ledger-audit/verify.js";
import { PayoutTracker } from "../src/payouts/payout-tracker.js";
import { assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { type Destination, makePayout, payee } from "./helpers/payouts.js";
import { signedInOperator } from "./helpers/two-factor.js";

// Issue 46, items 1 and 2, over signed HTTP on both databases with the embedded Virtual Bank: a
// payout carries the NIP session id its bank gave it (in the API, its event, found by it in the
// API and the console); NIP codes that say nothing final (97 timeout, 01 status unknown) never
// fail a payout whose money may have gone; a payout still unresolved after the fifth status query
// needs attention in the console, with the codes seen, once in the log and the metric; a transfer
// the bank answered is never sent again.

const SUCCESSFUL = payee("successful");
const UNKNOWN_SUCCESSFUL = payee("unknown_successful");
const UNKNOWN_FAILED = payee("unknown_failed");

/** The sandbox's longest: a test says when the bank settles; the tracker asks every few milliseconds meanwhile. */
const SETTLE_MS = 10_000;
const INSTITUTION = "100777";
const PASSWORD = "correct horse battery staple 42";

for (const dialect of DIALECTS) {
  describe(`NIP session ids and status queries on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let clock = Date.now();
    const alerts: Array<{ details: Record<string, unknown>; message: string }> = [];
    before(async () => {
      h = await createHarness({
        dialect,
        now: () => clock,
        env: {
          SANDBOX_PAYOUT_SETTLE_MS: String(SETTLE_MS),
          PAYOUT_CHECK_INTERVAL_MS: "10",
          NUBAN_INSTITUTION_CODE: INSTITUTION,
        },
      });
      // The server hands the tracker its log (compose/server.ts); here, a list.
      h.services.payoutTracker.useLog({
        warn: (details, message) => alerts.push({ details: details as Record<string, unknown>, message }),
      });
      business = await h.createBusiness({ name: "Tracing Ltd" });
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ email: `${randomUUID()}@example.com` }),
        as: business,
      });
      const { accountNumber } = (generated.json() as { data: { accountNumber: string } }).data;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount: 5_000_000 },
        as: business,
      });
      assert.equal(paid.statusCode, 201, paid.body);
    });
    after(() => h.close());

    const get = async (id: string) => {
      const response = await h.request({ url: `${API}/payouts/${id}`, as: business });
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { data: Payout }).data;
    };
    const balance = async () =>
      ((await h.request({ url: `${API}/balance`, as: business })).json() as { data: Balance }).data;
    /** A payout made to `destination`, then sent by the tracker as the server does at once. */
    const made = async (destination: Destination, amount: number) => {
      const payout = await makePayout(h, business, destination, amount);
      await h.services.payoutTracker.run();
      return payout;
    };
    /** Time passes and the tracker asks again. */
    const later = async (ms: number) => {
      clock += ms;
      await h.services.payoutTracker.run();
    };

    test("a payout carries its bank's NIP session id: in the API and its event, found by it, not by another business", async () => {
      const payout = await made(SUCCESSFUL, 1_000_00);
      const pending = await get(payout.id);
      assert.equal(pending.status, "pending");
      assert.match(pending.sessionId ?? "", /^\d{30}$/);
      assert.equal(pending.sessionId?.slice(0, 6), INSTITUTION, "the sending institution's code first");
      await later(SETTLE_MS);
      const paid = await get(payout.id);
      assert.equal(paid.status, "successful");
      assert.equal(paid.sessionId, pending.sessionId, "one session for one transfer");

      const events = await h.request({ url: `${API}/events?type=payout.successful`, as: business });
      const event = (events.json() as { data: Array<{ data: Payout }> }).data.find(
        (e) => e.data.id === payout.id,
      );
      assert.equal(event?.data.sessionId, paid.sessionId, "the webhook's payout has it");

      const found = await h.request({ url: `${API}/payouts?sessionId=${paid.sessionId}`, as: business });
      assert.deepEqual(
        (found.json() as { data: Payout[] }).data.map((p) => p.id),
        [payout.id],
      );
      assertValidation(
        await h.request({ url: `${API}/payouts?sessionId=12345`, as: business }),
        "sessionId must be a NIP session id: 30 digits",
      );
      const other = await h.createBusiness({ name: "Someone Else Ltd" });
      const theirs = await h.request({ url: `${API}/payouts?sessionId=${paid.sessionId}`, as: other });
      assert.deepEqual((theirs.json() as { data: Payout[] }).data, []);

      const { client: operator } = await signedInOperator(
        h.services,
        h.app,
        `ops.${dialect}@vas.example`,
        PASSWORD,
        {
          now: () => clock,
        },
      );
      const search = await operator.get(`/admin/payouts?sessionId=${paid.sessionId}`);
      assert.equal(search.response.statusCode, 200);
      assert.ok(
        search.response.body.includes(`/admin/payouts/${payout.id}`),
        "the console finds it by session id",
      );
      const detail = await operator.get(`/admin/payouts/${payout.id}`);
      assert.ok(detail.response.body.includes(`<code>${paid.sessionId}</code>`));
    });

    test("a NIP timeout is never a failure: 97, then 01, then the bank's final answer, success or refusal", async () => {
      const before = await balance();
      const good = await made(UNKNOWN_SUCCESSFUL, 2_000_00);
      const bad = await made(UNKNOWN_FAILED, 3_000_00);
      // The bank answered both transfers FAILED with code 97: the money may have gone, so both wait.
      for (const id of [good.id, bad.id]) assert.equal((await get(id)).status, "pending", id);
      await later(1_000);
      for (const id of [good.id, bad.id]) assert.equal((await get(id)).status, "pending", id);
      const held = await balance();
      assert.ok(held.available < before.available - 5_000_00, "both still held");

      await later(SETTLE_MS);
      const paid = await get(good.id);
      assert.equal(paid.status, "successful");
      assert.equal(paid.failureReason, null);
      const refused = await get(bad.id);
      assert.equal(refused.status, "failed");
      assert.equal(refused.failureReason, "Unable to locate record");
      // The refused one's amount and fee came back; the paid one's left.
      assert.equal((await balance()).available, before.available - paid.amount - paid.fee);
      assert.equal((await h.services.payoutListing.find(bad.id)).nipCodes, "97,01,25");
      assert.equal((await h.services.payoutListing.find(good.id)).nipCodes, "97,01,00");
    });

    test("unresolved after the fifth status query: needs attention in the console with the codes, once in the log and the metric", async () => {
      const { client: operator } = await signedInOperator(
        h.services,
        h.app,
        `ops2.${dialect}@vas.example`,
        PASSWORD,
        {
          now: () => clock,
        },
      );
      const payout = await made(UNKNOWN_SUCCESSFUL, 1_500_00);
      const attentionLines = () =>
        alerts.filter((line) => line.details.payoutId === payout.id && /needs attention/.test(line.message))
          .length;
      for (let query = 1; query <= 4; query++) await later(1_000);
      assert.equal(
        (await h.services.payoutListing.find(payout.id)).attentionAt,
        null,
        "four queries: not yet",
      );
      await later(1_000);
      const marked = await h.services.payoutListing.find(payout.id);
      assert.notEqual(marked.attentionAt, null, "the fifth unresolved query marks it");
      assert.equal(marked.status, "pending");
      await later(1_000);
      assert.equal(attentionLines(), 1, "one alert line, not one per query");
      assert.equal(alerts.find((line) => line.details.payoutId === payout.id)?.details.codes, "97,01");
      const metrics = await h.app.inject({ url: "/metrics" });
      assert.match(metrics.body, /vas_payouts_needing_attention_total [1-9]/);

      const listed = await operator.get("/admin/payouts?attention=1");
      assert.match(listed.response.body, /<h1>Payouts needing attention<\/h1>/);
      assert.match(listed.response.body, /1 payout needs attention/);
      assert.ok(listed.response.body.includes(`/admin/payouts/${payout.id}`));
      const detail = await operator.get(`/admin/payouts/${payout.id}`);
      assert.match(detail.response.body, /<strong>Needs attention<\/strong>/);
      assert.match(detail.response.body, /<code>97<\/code> Timeout waiting for response from destination/);
      assert.match(detail.response.body, /<code>01<\/code> Status unknown/);

      // Resolved at last: no longer listed; the transfer was made once.
      await later(SETTLE_MS);
      assert.equal((await get(payout.id)).status, "successful");
      const after = await operator.get("/admin/payouts?attention=1");
      assert.ok(!after.response.body.includes(`/admin/payouts/${payout.id}`));
      assert.deepEqual((await verifyLedger(h.storage.db)).drifts, []);
    });

    test("a transfer the bank answered and then says it never got is not sent again", async () => {
      const payout = (
        await h.request({
          url: `${API}/payouts`,
          body: { amount: 1_000, bankCode: SUCCESSFUL.bankCode, accountNumber: SUCCESSFUL.accountNumber },
          as: business,
          headers: { "idempotency-key": randomUUID() },
        })
      ).json().data as Payout;
      let transfers = 0;
      const forgetful = new PayoutTracker({
        storage: h.storage,
        payouts: h.services.payouts,
        checkIntervalMs: 1_000,
        stuckAfterMs: 3_600_000,
        attentionAfterQueries: 5,
        now: () => clock,
        rail: {
          async transferOut(request) {
            transfers++;
            return {
              reference: request.reference,
              status: "pending",
              reason: null,
              sessionId: null,
              code: "09",
            };
          },
          async queryTransfer() {
            return undefined;
          },
        },
      });
      const warned: string[] = [];
      forgetful.useLog({ warn: (_details, message) => warned.push(message) });
      for (let check = 0; check < 4; check++) {
        clock += 400_000;
        await forgetful.run();
      }
      assert.equal(transfers, 1, "sent once, never again");
      assert.equal((await get(payout.id)).status, "pending");
      assert.ok(warned.some((message) => /no longer knows a transfer/.test(message)));
    });
  });
}
