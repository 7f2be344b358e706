import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Payout, Transaction } from "../src/core/api-types.js";
import { assertFailCode } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { notification } from "./helpers/notifications.js";
import { payee } from "./helpers/payouts.js";

// Issue 46, item 6: a held credit returned to its payer, a refund of its whole amount taken from
// held (no fee, no limit), once; a return the bank does not make leaves the credit held again, to
// accept or return; a held credit is not refunded as a payment is.

const SUCCESSFUL = payee("successful");
const FAILED = payee("failed");
const SETTLE_MS = 2_000;

for (const dialect of DIALECTS) {
  describe(`held credits returned on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let clock = Date.now();
    let accountNumber: string;
    before(async () => {
      h = await createHarness({
        dialect,
        now: () => clock,
        env: { SANDBOX_PAYOUT_SETTLE_MS: String(SETTLE_MS) },
      });
      business = await h.createBusiness({ name: "Returns Ltd" });
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ allowedPayers: [{ name: "Ada Obi" }], onMismatch: "hold" }),
        as: business,
      });
      assert.equal(generated.statusCode, 201, generated.body);
      accountNumber = generated.json().data.accountNumber;
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    /** A credit from a payer the account does not name, at `from`'s bank: held. */
    const heldFrom = async (from: { bankCode: string; accountNumber: string }, amount: number) => {
      const payer = {
        name: "Chidi Eze",
        accountNumber: from.accountNumber,
        bankName: "Sandbox",
        bankCode: from.bankCode,
      };
      const { transaction } = await h.services.collections.receive(
        notification(accountNumber, amount, new Date(clock).toISOString(), { payer }),
      );
      assert.equal(transaction.status, "held");
      return transaction;
    };
    const post = (path: string, body: unknown = {}) =>
      h.request({
        timestamp: ++clock,
        url: `${API}${path}`,
        body,
        as: business,
        headers: { "idempotency-key": randomUUID() },
      });
    const get = async (path: string) => (await h.request({ url: `${API}${path}`, as: business })).json().data;
    const bankTells = async (ms: number) => {
      clock += ms;
      await h.services.payoutTracker.run();
      await h.services.bankPayoutNotices?.run();
    };

    test("a return pays the whole amount back from held, with no fee, payment.returned, once", async () => {
      const held = await heldFrom(SUCCESSFUL, 25_000);
      const before = await get("/balance");
      const response = await post(`/transactions/${held.id}/return`);
      assert.equal(response.statusCode, 202, response.body);
      const refund = response.json().data as Payout;
      assert.deepEqual(
        [refund.amount, refund.fee, refund.refundOf, refund.accountNumber, refund.status],
        [25_000, 0, held.id, SUCCESSFUL.accountNumber, "pending"],
      );
      const during = await get("/balance");
      assert.equal(before.held - during.held, 25_000, "out of held");
      assert.equal(during.available, before.available, "available untouched");
      assert.equal(((await get(`/transactions/${held.id}`)) as Transaction).status, "returned");
      const events = (await get("/events?type=payment.returned")) as Array<{
        data: { transactionId: string; refund: Payout };
      }>;
      assert.equal(events.find((e) => e.data.transactionId === held.id)?.data.refund.id, refund.id);
      assertFailCode(await post(`/transactions/${held.id}/return`), 422, "CREDIT_NOT_HELD");
      assertFailCode(await post(`/transactions/${held.id}/accept`), 422, "CREDIT_NOT_HELD");
      await bankTells(SETTLE_MS);
      await bankTells(SETTLE_MS);
      assert.equal((await get(`/payouts/${refund.id}`)).status, "successful");
      const afterwards = await get("/balance");
      assert.equal(afterwards.totalPaidOut - before.totalPaidOut, 25_000);
      await assertLedgerInvariants(h.storage.db);
    });

    test("a return the bank does not make leaves the credit held again, to accept", async () => {
      const held = await heldFrom(FAILED, 12_000);
      const response = await post(`/transactions/${held.id}/return`);
      assert.equal(response.statusCode, 202, response.body);
      const refund = response.json().data as Payout;
      await bankTells(SETTLE_MS);
      await bankTells(SETTLE_MS);
      assert.equal((await get(`/payouts/${refund.id}`)).status, "failed");
      assert.equal(((await get(`/transactions/${held.id}`)) as Transaction).status, "held", "held again");
      const accepted = await post(`/transactions/${held.id}/accept`);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().data.status, "successful");
      await assertLedgerInvariants(h.storage.db);
    });

    test("HELD_CREDIT_DAYS: two passes at once return an expired held credit once; a fresh one stays", async () => {
      const old = await heldFrom(SUCCESSFUL, 3_000);
      clock += 8 * 86_400_000;
      const fresh = await heldFrom(SUCCESSFUL, 4_000);
      const cutoff = new Date(clock - h.services.config.heldCreditMs).toISOString();
      const passes = await Promise.all([
        h.services.refunds.returnExpired(cutoff),
        h.services.refunds.returnExpired(cutoff),
      ]);
      const returned = passes.flatMap((pass) => pass.returned);
      assert.equal(returned.filter((id) => id === old.id).length, 1, "returned once, by one pass");
      assert.equal(new Set(returned).size, returned.length, "nothing returned twice");
      assert.ok(!returned.includes(fresh.id), "not yet HELD_CREDIT_DAYS old");
      assert.equal(((await get(`/transactions/${old.id}`)) as Transaction).status, "returned");
      assert.equal(((await get(`/transactions/${fresh.id}`)) as Transaction).status, "held");
      const refunds = (await get("/payouts?limit=100")) as Payout[];
      assert.equal(refunds.filter((p) => p.refundOf === old.id).length, 1, "one refund");
      await assertLedgerInvariants(h.storage.db);
    });

    test("a held credit is not refunded as a payment: it is accepted or returned", async () => {
      const held = await heldFrom(SUCCESSFUL, 5_000);
      assertFailCode(await post(`/transactions/${held.id}/refund`), 422, "CREDIT_HELD");
      const other = await h.createBusiness({ name: "Elsewhere Ltd" });
      await h.services.payoutSettings.setApiPayouts(other.businessId, true);
      const theirs = await h.request({
        timestamp: ++clock,
        url: `${API}/transactions/${held.id}/return`,
        body: {},
        as: other,
        headers: { "idempotency-key": randomUUID() },
      });
      assertFailCode(theirs, 404, "TRANSACTION_NOT_FOUND");
    });
  });
}
