import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { VasApiError, type VasClient } from "../src/client/index.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { listeningClient } from "./helpers/sdk.js";

// The SDK's collections methods against a real server on a real port (signature version 2).

for (const dialect of DIALECTS) {
  describe(`the SDK's collections methods on ${dialect}`, () => {
    let h: Harness;
    let client: VasClient;
    before(async () => {
      h = await createHarness({ dialect });
      const business = await h.createBusiness();
      // A held credit's return is money out: the business lets its API keys send it.
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      client = await listeningClient(h, business);
    });
    after(() => h.close());

    test("pay, read back, list, deactivate and reactivate", async () => {
      const account = await client.generateAccount({
        name: "Ada Obi",
        email: "sdk@example.com",
        bvn: "22345678901",
      });
      const paid = await client.sandbox.transfer({ accountNumber: account.accountNumber, amount: 150_000 });
      assert.deepEqual([paid.amount, paid.fee, paid.netAmount, paid.currency], [150_000, 0, 150_000, "NGN"]);
      assert.deepEqual(await client.getTransaction(paid.id), paid);
      const detail = await client.getAccount(account.accountNumber);
      assert.deepEqual(
        [detail.status, detail.totalReceived, detail.expectedAmount],
        ["active", 150_000, null],
      );
      const second = await client.sandbox.transfer({ accountNumber: account.accountNumber, amount: 1 });
      const page = await client.listTransactions({ limit: 1, from: new Date(Date.now() - 60_000) });
      assert.deepEqual(
        page.data.map((t) => t.id),
        [second.id],
      );
      assert.equal(page.pagination.total, 2);
      const all: string[] = [];
      for await (const t of client.transactions({ accountNumber: account.accountNumber, limit: 1 }))
        all.push(t.id);
      assert.deepEqual(all, [second.id, paid.id]);
      assert.deepEqual(await client.getBalance(), {
        available: 150_001,
        pending: 0,
        held: 0,
        totalReceived: 150_001,
        totalPaidOut: 0,
        totalFees: 0,
        totalVat: 0,
        totalStampDuty: 0,
        currency: "NGN",
      });
      const before = await client.getBalance({ at: new Date(Date.parse(paid.createdAt) - 1) });
      assert.deepEqual(before, {
        available: 0,
        pending: 0,
        held: 0,
        totalReceived: 0,
        totalPaidOut: 0,
        totalFees: 0,
        totalVat: 0,
        totalStampDuty: 0,
        currency: "NGN",
      });
      assert.equal((await client.getBalance({ at: paid.createdAt })).available, 150_000);
      const requery = await client.listTransactions({ sessionId: paid.sessionId, timeField: "createdAt" });
      assert.deepEqual(requery.data, [paid]);
      const payments = await client.listEvents({ type: "payment.received", limit: 1 });
      assert.equal(payments.pagination.total, 2);
      const latest = payments.data[0];
      assert.deepEqual(latest?.data, { ...second, payment: null });
      assert.deepEqual(await client.getEvent(latest?.id ?? ""), latest);
      assert.equal((await client.deactivateAccount(account.accountNumber)).status, "deactivated");
      await assert.rejects(
        client.sandbox.transfer({ accountNumber: account.accountNumber, amount: 5 }),
        (error) => {
          assert.ok(error instanceof VasApiError);
          assert.deepEqual([error.status, error.code], [422, "ACCOUNT_DEACTIVATED"]);
          return true;
        },
      );
      assert.equal((await client.reactivateAccount(account.accountNumber)).status, "active");
      // Issue 46: the identity an account lacks, added through the SDK, raises its tier.
      assert.equal((await client.getAccount(account.accountNumber)).tier, 1);
      assert.equal((await client.addAccountIdentity(account.accountNumber, { nin: "32345678901" })).tier, 2);
      await assert.rejects(
        client.addAccountIdentity(account.accountNumber, { nin: "00000000002" }),
        (error) => {
          assert.ok(error instanceof VasApiError);
          assert.deepEqual([error.status, error.code], [409, "CONFLICT"]);
          return true;
        },
      );
      const temporary = await client.generateTemporaryAccount({
        name: "Ada Obi",
        email: "sdk@example.com",
        bvn: "22345678901",
        expectedAmount: 5_000,
        amountPolicy: "accumulate",
      });
      assert.deepEqual([temporary.expectedAmount, temporary.amountPolicy], [5_000, "accumulate"]);
      await client.sandbox.transfer({ accountNumber: temporary.accountNumber, amount: 2_000 });
      const partial = await client.getAccount(temporary.accountNumber);
      assert.deepEqual(
        [partial.amountPaid, partial.amountOutstanding, partial.paymentStatus],
        [2_000, 3_000, "partially_paid"],
      );
      await assert.rejects(client.getTransaction("txn_00000000000000000000000000000000"), {
        code: "TRANSACTION_NOT_FOUND",
      });
    });

    test("held credits accepted and returned (issue 46, item 6)", async () => {
      const account = await client.generateAccount({
        name: "Ada Obi",
        email: "held.sdk@example.com",
        bvn: "22345678901",
        allowedPayers: [{ name: "Ada Obi" }],
        onMismatch: "hold",
      });
      const payer = SANDBOX_PAYEES.find((p) => p.outcome === "successful");
      assert.ok(payer);
      const fromStranger = (amount: number) =>
        client.sandbox.transfer({
          accountNumber: account.accountNumber,
          amount,
          payerName: "Chidi Eze",
          payerAccountNumber: payer.accountNumber,
          payerBankCode: payer.bankCode,
        });
      const kept = await fromStranger(7_000);
      const sentBack = await fromStranger(3_000);
      assert.deepEqual([kept.status, sentBack.status], ["held", "held"]);
      const balance = await client.getBalance();
      const accepted = await client.acceptHeld(kept.id);
      assert.deepEqual([accepted.id, accepted.status, accepted.amount], [kept.id, "successful", 7_000]);
      const returned = await client.returnHeld(sentBack.id, { idempotencyKey: "return-held-once" });
      assert.deepEqual(
        [returned.status, returned.amount, returned.fee, returned.refundOf, returned.accountNumber],
        ["pending", 3_000, 0, sentBack.id, payer.accountNumber],
      );
      // The same key again is the same return, not a second one.
      assert.deepEqual(
        await client.returnHeld(sentBack.id, { idempotencyKey: "return-held-once" }),
        returned,
      );
      assert.equal((await client.getTransaction(sentBack.id)).status, "returned");
      const after = await client.getBalance();
      assert.deepEqual(
        [after.held, after.pending, after.available],
        [balance.held - 10_000, balance.pending + 3_000, balance.available + accepted.netAmount],
      );
      for (const decided of [kept.id, sentBack.id]) {
        await assert.rejects(client.returnHeld(decided), (error) => {
          assert.ok(error instanceof VasApiError);
          assert.deepEqual([error.status, error.code], [422, "CREDIT_NOT_HELD"]);
          return true;
        });
      }
      await assert.rejects(client.returnHeld("txn_00000000000000000000000000000000"), {
        code: "TRANSACTION_NOT_FOUND",
      });
    });

    // Issue 46, item 6: who may pay in, changed after the account was generated.
    test("updateAccount: the next credit from anyone else is held, then anyone may pay again", async () => {
      const account = await client.generateAccount({
        name: "Bola Ade",
        email: "sdk.update@example.com",
        bvn: "22345678901",
      });
      const stranger = { payerName: "Chidi Eze", payerAccountNumber: "0987654321", payerBankCode: "044" };
      const held = await client.updateAccount(account.accountNumber, {
        allowedPayers: [{ accountNumber: "0123456789", bankCode: "058" }],
        onMismatch: "hold",
      });
      assert.deepEqual(held, await client.getAccount(account.accountNumber));
      assert.deepEqual(
        [held.allowedPayers, held.onMismatch],
        [[{ accountNumber: "0123456789", bankCode: "058" }], "hold"],
      );
      const kept = await client.sandbox.transfer({
        accountNumber: account.accountNumber,
        amount: 900,
        ...stranger,
      });
      assert.equal(kept.status, "held");
      const anyone = await client.updateAccount(account.accountNumber, { allowedPayers: null });
      assert.deepEqual([anyone.allowedPayers, anyone.onMismatch], [null, "hold"]);
      const paid = await client.sandbox.transfer({
        accountNumber: account.accountNumber,
        amount: 800,
        ...stranger,
      });
      assert.equal(paid.status, "successful");
      await assert.rejects(client.updateAccount(account.accountNumber, {}), (error) => {
        assert.ok(error instanceof VasApiError);
        assert.deepEqual([error.status, error.code], [400, "VALIDATION_FAILED"]);
        assert.match(error.message, /send allowedPayers, onMismatch or both/);
        return true;
      });
      await assert.rejects(client.updateAccount("0000000000", { onMismatch: "decline" }), {
        code: "ACCOUNT_NOT_FOUND",
      });
    });
  });
}
