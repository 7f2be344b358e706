import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Balance, Payout, Transaction } from "../src/core/api-types.js";
import { providerRejected, providerUnavailable } from "../src/errors.js";
import { verifyLedger } from "../src/ledger-audit/verify.js";
import { PayoutTracker } from "../src/payouts/payout-tracker.js";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { payee, payoutTo, postPayout } from "./helpers/payouts.js";

// POST /payouts, GET /payouts and GET /payouts/{id} over signed HTTP on both databases, with the
// embedded Virtual Bank: every refusal in the contract's order, the hold, and each destination's
// outcome reached both ways the service learns it (the bank's notifications, the tracker's query),
// on the ledger, which `vas ledger verify` finds clean at the end.

const SUCCESSFUL = payee("successful");
const FAILED = payee("failed");
const REVERSED = payee("reversed");
const UNRESOLVABLE = payee("unresolvable");

const SETTLE_MS = 2_000;
const REVERSE_MS = 10_000;

for (const dialect of DIALECTS) {
  describe(`payouts on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let clock = Date.now();
    before(async () => {
      h = await createHarness({
        dialect,
        now: () => clock,
        env: { SANDBOX_PAYOUT_SETTLE_MS: String(SETTLE_MS), SANDBOX_PAYOUT_REVERSE_MS: String(REVERSE_MS) },
      });
      business = await h.createBusiness({ name: "Paying Out Ltd" });
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      await fund(business, 10_000_000);
    });
    after(() => h.close());

    /** Pays `amount` kobo into a new account of the business through the sandbox. */
    async function fund(as: TestBusiness, amount: number) {
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ email: `${randomUUID()}@example.com` }),
        as,
      });
      assert.equal(generated.statusCode, 201, generated.body);
      const accountNumber = (generated.json() as { data: { accountNumber: string } }).data.accountNumber;
      const paid = await h.request({ url: `${API}/sandbox/transfers`, body: { accountNumber, amount }, as });
      assert.equal(paid.statusCode, 201, paid.body);
    }

    /** POST /payouts with an Idempotency-Key (null: none). */
    const pay = (body: unknown, key?: string | null, as = business) => postPayout(h, as, body, key);
    const balance = async (as = business) =>
      ((await h.request({ url: `${API}/balance`, as })).json() as { data: Balance }).data;
    const get = async (id: string) => {
      const response = await h.request({ url: `${API}/payouts/${id}`, as: business });
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { data: Payout }).data;
    };
    /** A payout made, and sent to the bank as the server's tracker does at once. */
    const made = async (body: unknown) => {
      const response = await pay(body);
      assert.equal(response.statusCode, 202, response.body);
      await h.services.payoutTracker.run();
      return (response.json() as { data: Payout }).data;
    };
    /** Lets the sandbox's time pass and the bank tell the service (its notifications). */
    const bankTells = async (ms: number) => {
      clock += ms;
      await h.services.bankPayoutNotices?.run();
    };

    test("the checks come in the contract's order: key, switch, body, name, limits, balance", async () => {
      const bad = { amount: "lots", bankCode: "x" };
      assertFailCode(await pay(bad, null), 400, "IDEMPOTENCY_KEY_REQUIRED");
      const off = await h.createBusiness({ name: "Not Yet Paying Ltd" });
      assertFailCode(await pay(bad, randomUUID(), off), 403, "PAYOUTS_DISABLED");
      assertValidation(await pay(bad), "amount must be a whole number of kobo from 1 to 9007199254740991");
      assertValidation(await pay({ amount: 100, bankCode: "058" }), "accountNumber is required");
      assertValidation(
        await pay(payoutTo({ bankCode: "999", accountNumber: SUCCESSFUL.accountNumber }, 100)),
        "bankCode 999 is not a bank in GET /banks",
      );
      const typo = `${SUCCESSFUL.accountNumber.slice(0, 9)}${(Number(SUCCESSFUL.accountNumber[9]) + 1) % 10}`;
      assert.equal((await pay(payoutTo({ bankCode: "058", accountNumber: typo }, 100))).statusCode, 400);
      assertFailCode(await pay(payoutTo(UNRESOLVABLE, 100)), 422, "ACCOUNT_NOT_RESOLVED");
      assertFailCode(await pay(payoutTo(SUCCESSFUL, 500_000_001)), 422, "PAYOUT_LIMIT_EXCEEDED");
      const before = await balance();
      const refused = await pay(payoutTo(SUCCESSFUL, before.available));
      assertFailCode(refused, 422, "INSUFFICIENT_BALANCE");
      assert.match((refused.json() as { message: string }).message, /needs NGN/);
      assert.deepEqual(await balance(), before, "nothing held");
      const list = await h.request({ url: `${API}/payouts`, as: business });
      assert.equal((list.json() as { pagination: { total: number } }).pagination.total, 0, "no payout made");
    });

    test("a payout holds amount and fee, then the bank's success posts the hold", async () => {
      const before = await balance();
      const payout = await made(payoutTo(SUCCESSFUL, 250_000, { narration: "Invoice 1042" }));
      assert.equal(payout.status, "pending");
      assert.equal(payout.fee, 1_000, "up to NGN 5,000: NGN 10");
      assert.equal(payout.accountName, SUCCESSFUL.accountName);
      assert.equal(payout.bankName, SUCCESSFUL.bankName);
      assert.equal(payout.narration, "Invoice 1042");
      assert.equal(payout.reference, payout.id);
      assert.equal(payout.failureReason, null);
      assert.deepEqual(await balance(), {
        ...before,
        available: before.available - 251_000,
        pending: 251_000,
      });
      await h.services.payoutTracker.run();
      assert.equal((await get(payout.id)).status, "pending", "the bank takes its time");
      await bankTells(SETTLE_MS);
      const settled = await get(payout.id);
      assert.equal(settled.status, "successful");
      assert.deepEqual(await balance(), {
        ...before,
        available: before.available - 251_000,
        pending: 0,
        totalPaidOut: before.totalPaidOut + 250_000,
        totalFees: before.totalFees + 1_000,
        totalVat: 0,
        totalStampDuty: 0,
      });
      const events = await h.request({ url: `${API}/events?type=payout.successful`, as: business });
      const data = (events.json() as { data: Array<{ data: Payout }> }).data;
      assert.deepEqual(
        data.map((event) => event.data),
        [settled],
        "one payout.successful event, with the payout as data",
      );
    });

    test("a failed payout voids its hold: amount and fee back", async () => {
      const before = await balance();
      const payout = await made(payoutTo(FAILED, 1_000_000));
      assert.equal(payout.fee, 2_500, "up to NGN 50,000: NGN 25");
      assert.equal((await balance()).available, before.available - 1_002_500);
      // Told nothing by the bank: the tracker asks it again when its next check is due.
      clock += SETTLE_MS;
      await h.services.payoutTracker.run();
      assert.equal((await get(payout.id)).status, "pending", "not due yet");
      clock += h.services.config.payouts.checkIntervalMs;
      await h.services.payoutTracker.run();
      const failed = await get(payout.id);
      assert.equal(failed.status, "failed");
      assert.equal(failed.failureReason, "Account dormant");
      assert.deepEqual(await balance(), before);
      await bankTells(0);
      assert.deepEqual(await balance(), before, "the bank's later notification changes nothing");
    });

    test("a reversal after success credits the amount back and keeps the fee", async () => {
      const before = await balance();
      const payout = await made(payoutTo(REVERSED, 6_000_000));
      assert.equal(payout.fee, 5_000, "above NGN 50,000: NGN 50");
      await bankTells(SETTLE_MS);
      assert.equal((await get(payout.id)).status, "successful");
      await bankTells(REVERSE_MS);
      const reversed = await get(payout.id);
      assert.equal(reversed.status, "reversed");
      assert.equal(reversed.failureReason, "Returned by the receiving bank");
      assert.deepEqual(await balance(), {
        ...before,
        available: before.available - 5_000,
        totalFees: before.totalFees + 5_000,
        totalVat: 0,
        totalStampDuty: 0,
      });
      const events = await h.request({ url: `${API}/events?type=payout.reversed`, as: business });
      assert.equal((events.json() as { data: unknown[] }).data.length, 1);
    });

    test("a reference is the business's own: the same details answer the payout, others are 409", async () => {
      const body = payoutTo(SUCCESSFUL, 10_000, { reference: "inv-7" });
      const first = await made(body);
      assert.equal(first.reference, "inv-7");
      const again = await made(body);
      assert.equal(again.id, first.id, "another key, the same reference and details: the same payout");
      assertFailCode(await pay({ ...body, amount: 10_001 }), 409, "DUPLICATE_REFERENCE");
      const other = await h.createBusiness({ name: "Other Payer Ltd" });
      await h.services.payoutSettings.setApiPayouts(other.businessId, true);
      await fund(other, 100_000);
      const theirs = await pay(body, randomUUID(), other);
      assert.equal(theirs.statusCode, 202, "another business may use the same reference");
      assert.notEqual((theirs.json() as { data: Payout }).data.id, first.id);
      const peek = await h.request({ url: `${API}/payouts/${first.id}`, as: other });
      assertFailCode(peek, 404, "PAYOUT_NOT_FOUND");
    });

    test("a key limited to other addresses cannot pay out; from a listed one it can", async () => {
      await h.services.payoutSettings.setKeyPayoutIps(business.keyId, "203.0.113.7, 10.0.0.0/8");
      try {
        const refused = await pay(payoutTo(SUCCESSFUL, 1_000, { reference: "away" }));
        assertFailCode(refused, 403, "PAYOUT_IP_NOT_ALLOWED");
        assert.match(refused.json().message, /127\.0\.0\.1 is not one of them/);
        await h.services.payoutSettings.setKeyPayoutIps(business.keyId, "127.0.0.0/8");
        assert.equal((await pay(payoutTo(SUCCESSFUL, 1_000, { reference: "home" }))).statusCode, 202);
      } finally {
        await h.services.payoutSettings.setKeyPayoutIps(business.keyId, null);
      }
    });

    test("a retried request with its Idempotency-Key is answered once, one payout made", async () => {
      const key = randomUUID();
      const body = payoutTo(SUCCESSFUL, 20_000);
      const first = await pay(body, key);
      const second = await pay(body, key);
      assert.equal(first.statusCode, 202);
      assert.equal(second.body, first.body);
      assert.equal(second.headers["idempotent-replayed"], "true");
    });

    test("the daily limit counts the day's payouts that did not fail", async () => {
      const today = await h.request({ url: `${API}/payouts?status=pending`, as: business });
      assert.equal(today.statusCode, 200);
      await h.services.payoutSettings.setLimits(business.businessId, { dailyLimit: 1_000_000 });
      try {
        const refused = await pay(payoutTo(SUCCESSFUL, 900_000));
        assertFailCode(refused, 422, "PAYOUT_LIMIT_EXCEEDED");
        assert.match((refused.json() as { message: string }).message, /daily limit of NGN 10,000\.00/);
      } finally {
        await h.services.payoutSettings.setLimits(business.businessId, { dailyLimit: null });
      }
    });

    test("GET /payouts lists newest first, filtered by status and time", async () => {
      await bankTells(REVERSE_MS);
      await h.services.payoutTracker.run();
      const all = await h.request({ url: `${API}/payouts?limit=100`, as: business });
      assert.equal(all.statusCode, 200, all.body);
      const { data, pagination } = all.json() as { data: Payout[]; pagination: { total: number } };
      assert.equal(pagination.total, data.length);
      const times = data.map((p) => p.createdAt);
      assert.deepEqual(times, [...times].sort().reverse(), "newest first");
      for (const status of ["successful", "failed", "reversed"] as const) {
        const page = await h.request({ url: `${API}/payouts?status=${status}`, as: business });
        const items = (page.json() as { data: Payout[] }).data;
        assert.deepEqual(
          items.map((p) => p.id),
          data.filter((p) => p.status === status).map((p) => p.id),
        );
      }
      const future = new Date(clock + 86_400_000).toISOString();
      const none = await h.request({ url: `${API}/payouts?from=${future}`, as: business });
      assert.deepEqual((none.json() as { data: Payout[] }).data, []);
      assertValidation(
        await h.request({ url: `${API}/payouts?status=done`, as: business }),
        "status must be pending, successful, failed, reversed",
      );
      assertFailCode(
        await h.request({ url: `${API}/payouts/po_nope`, as: business }),
        404,
        "PAYOUT_NOT_FOUND",
      );
    });

    test("a bank that cannot answer leaves a payout pending, asked again later, never failed", async () => {
      const payout = (await pay(payoutTo(SUCCESSFUL, 30_000))).json().data as Payout;
      let queries = 0;
      let transfers = 0;
      const unreachable = new PayoutTracker({
        storage: h.storage,
        payouts: h.services.payouts,
        checkIntervalMs: 1_000,
        stuckAfterMs: 60_000,
        attentionAfterQueries: 5,
        now: () => clock,
        rail: {
          async transferOut() {
            transfers++;
            if (transfers === 1) throw providerUnavailable();
            throw providerRejected("the query's refusal must not fail a payout");
          },
          async queryTransfer() {
            queries++;
            throw providerRejected("cannot tell");
          },
        },
      });
      await unreachable.run();
      assert.equal(transfers, 1, "sent once, no answer");
      assert.equal((await get(payout.id)).status, "pending");
      clock += 1_000;
      await unreachable.run();
      assert.equal(queries, 1, "asked about it");
      assert.equal(transfers, 1, "a refused question sends nothing");
      assert.equal((await get(payout.id)).status, "pending", "nor fails it");
      await h.services.payoutTracker.run();
      clock += 10_000;
      await h.services.payoutTracker.run();
    });

    /** A payment into the business from a payer at `payer`'s bank (null: the bank did not say). */
    async function paymentFrom(payer: { bankCode: string; accountNumber: string } | null, amount: number) {
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ email: `${randomUUID()}@example.com` }),
        as: business,
      });
      const accountNumber = generated.json().data.accountNumber as string;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: {
          accountNumber,
          amount,
          ...(payer ? { payerBankCode: payer.bankCode, payerAccountNumber: payer.accountNumber } : {}),
        },
        as: business,
      });
      assert.equal(paid.statusCode, 201, paid.body);
      return paid.json().data as Transaction;
    }
    // Each at its own millisecond: the clock stands still here, and a version 1 signature covers the
    // body and the timestamp only (the same signature again is a replay).
    const refund = (id: string, body: unknown = {}, key: string | null = randomUUID()) =>
      h.request({
        timestamp: ++clock,
        url: `${API}/transactions/${id}/refund`,
        body,
        as: business,
        headers: key === null ? {} : { "idempotency-key": key },
      });
    const transaction = async (id: string) =>
      (await h.request({ url: `${API}/transactions/${id}`, as: business })).json().data as Transaction;

    test("a refund in full pays the payer back: a payout with refundOf, refund.successful", async () => {
      const payment = await paymentFrom(SUCCESSFUL, 50_000);
      assert.deepEqual(payment.payer.bankCode, SUCCESSFUL.bankCode);
      assert.equal(payment.refundedAmount, 0);
      const response = await refund(payment.id);
      assert.equal(response.statusCode, 202, response.body);
      const refunded = response.json().data as Payout;
      assert.deepEqual(
        [refunded.amount, refunded.refundOf, refunded.accountNumber, refunded.narration, refunded.status],
        [50_000, payment.id, SUCCESSFUL.accountNumber, "Refund", "pending"],
      );
      assert.equal((await transaction(payment.id)).refundedAmount, 50_000);
      assertFailCode(await refund(payment.id, { amount: 1 }), 422, "REFUND_EXCEEDS_PAYMENT");
      await h.services.payoutTracker.run();
      await bankTells(SETTLE_MS);
      assert.equal((await get(refunded.id)).status, "successful");
      const events = await h.request({ url: `${API}/events?type=refund.successful`, as: business });
      assert.deepEqual(
        (events.json().data as Array<{ data: Payout }>).map((event) => event.data.id),
        [refunded.id],
      );
      assert.equal((await transaction(payment.id)).refundedAmount, 50_000);
    });

    test("refunds in part add up to the payment, never past it; a failed one frees its amount", async () => {
      const payment = await paymentFrom(FAILED, 30_000);
      const first = await refund(payment.id, { amount: 10_000, reason: "Two items returned" });
      assert.equal(first.statusCode, 202, first.body);
      assert.equal((first.json().data as Payout).narration, "Two items returned");
      const tooMuch = await refund(payment.id, { amount: 20_001 });
      assertFailCode(tooMuch, 422, "REFUND_EXCEEDS_PAYMENT");
      assert.match(tooMuch.json().message, /NGN 200\.00 is left to refund/);
      const rest = await refund(payment.id);
      assert.equal((rest.json().data as Payout).amount, 20_000, "the default is what is left");
      assert.equal((await transaction(payment.id)).refundedAmount, 30_000);
      // Both go to a dormant account: they fail, and their amounts may be refunded again.
      await h.services.payoutTracker.run();
      await bankTells(SETTLE_MS);
      assert.equal((await transaction(payment.id)).refundedAmount, 0);
      const events = await h.request({ url: `${API}/events?type=refund.failed`, as: business });
      assert.equal(events.json().data.length, 2);
      assert.equal((await refund(payment.id, { amount: 30_000 })).statusCode, 202);
    });

    test("two refunds of one payment at once: together never more than the payment", async () => {
      const payment = await paymentFrom(SUCCESSFUL, 40_000);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => refund(payment.id, { amount: 15_000, reason: `Return ${i}` })),
      );
      assert.deepEqual(
        answers.map((a) => a.statusCode).sort(),
        [202, 202, 422, 422, 422, 422],
        answers.map((a) => a.body).join("\n"),
      );
      assert.equal((await transaction(payment.id)).refundedAmount, 30_000);
    });

    test("a payer that cannot be named cannot be refunded; another business's payment is 404", async () => {
      const unknownBank = await paymentFrom(null, 5_000);
      assert.equal(unknownBank.payer.bankCode, null);
      const refused = await refund(unknownBank.id);
      assertFailCode(refused, 422, "ACCOUNT_NOT_RESOLVED");
      assert.match(refused.json().message, /did not say which bank/);
      assertFailCode(await refund((await paymentFrom(UNRESOLVABLE, 5_000)).id), 422, "ACCOUNT_NOT_RESOLVED");
      assertFailCode(await refund(unknownBank.id, {}, null), 400, "IDEMPOTENCY_KEY_REQUIRED");
      assertValidation(
        await refund(unknownBank.id, { amount: 0 }),
        "amount must be a whole number of kobo from 1 to 9007199254740991",
      );
      assertFailCode(await refund("txn_00000000000000000000000000000000"), 404, "TRANSACTION_NOT_FOUND");
      const other = await h.createBusiness({ name: "Someone Else Ltd" });
      await h.services.payoutSettings.setApiPayouts(other.businessId, true);
      const theirs = await h.request({
        url: `${API}/transactions/${unknownBank.id}/refund`,
        body: {},
        as: other,
        headers: { "idempotency-key": randomUUID() },
      });
      assertFailCode(theirs, 404, "TRANSACTION_NOT_FOUND");
    });

    test("the ledger proves itself: every hold posted or voided once, nothing below zero", async () => {
      await h.services.payoutTracker.run();
      await bankTells(REVERSE_MS + SETTLE_MS);
      const report = await verifyLedger(h.storage.db);
      assert.deepEqual(report.drifts, []);
      const pending = await h.request({ url: `${API}/payouts?status=pending`, as: business });
      assert.equal((pending.json() as { pagination: { total: number } }).pagination.total, 0);
      const { pending: held } = await balance();
      assert.equal(held, 0);
    });
  });
}
