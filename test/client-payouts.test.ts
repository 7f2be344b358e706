import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { VasApiError, type VasClient } from "../src/client/index.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { listeningClient } from "./helpers/sdk.js";

// The SDK's money-out methods against a real server on a real port: banks, name enquiry, a
// payout made, read back and listed page by page, and a refusal as a VasApiError.

for (const dialect of DIALECTS) {
  describe(`the SDK's payouts on ${dialect}`, () => {
    let h: Harness;
    let client: VasClient;
    let businessId: string;
    before(async () => {
      h = await createHarness({ dialect, env: { SETTLEMENT_COOL_OFF_HOURS: "0" } });
      const business = await h.createBusiness();
      businessId = business.businessId;
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      client = await listeningClient(h, business);
    });
    after(() => h.close());

    test("resolve, pay out, read back, list every page; too much is INSUFFICIENT_BALANCE", async () => {
      const account = await client.generateAccount({
        name: "Ada Obi",
        email: "p@example.com",
        bvn: "22345678901",
      });
      await client.sandbox.transfer({ accountNumber: account.accountNumber, amount: 100_000 });
      const [destination] = await client.sandbox.payoutAccounts();
      assert.ok(destination);
      const named = await client.banks.resolve(destination);
      const made = [];
      for (const reference of ["sdk-1", "sdk-2", "sdk-3"]) {
        made.push(
          await client.payouts.create({
            amount: 10_000,
            bankCode: named.bankCode,
            accountNumber: named.accountNumber,
            reference,
          }),
        );
      }
      assert.deepEqual(
        made.map((p) => [p.status, p.accountName, p.fee]),
        Array(3).fill(["pending", named.accountName, 1_000]),
      );
      assert.deepEqual(await client.payouts.get(made[0]?.id ?? ""), made[0]);
      const all = [];
      for await (const payout of client.payouts.all({ limit: 2 })) all.push(payout.reference);
      assert.deepEqual(all, ["sdk-3", "sdk-2", "sdk-1"]);
      assert.equal((await client.payouts.list({ status: "failed" })).pagination.total, 0);
      await assert.rejects(
        client.payouts.create({
          amount: 1_000_000,
          bankCode: named.bankCode,
          accountNumber: named.accountNumber,
        }),
        (error: unknown) => error instanceof VasApiError && error.code === "INSUFFICIENT_BALANCE",
      );
      assert.equal(SANDBOX_PAYEES[0]?.accountNumber, destination.accountNumber);
    });

    test("settlements: listed page by page, read back, with the transactions each covered", async () => {
      const [destination] = await client.sandbox.payoutAccounts();
      assert.ok(destination);
      await h.services.settlementTerms.setAccount(businessId, { type: "cli", id: null }, destination);
      const business = { businessId, businessName: "" };
      const account = await client.generateAccount({
        name: "Bola Ade",
        email: "s@example.com",
        bvn: "22345678902",
      });
      const ids = [];
      for (const amount of [500_000, 700_000]) {
        await client.sandbox.transfer({ accountNumber: account.accountNumber, amount });
        ids.push((await h.services.settlements.settle(business)).id);
      }
      const all = [];
      for await (const settlement of client.settlements.all({ limit: 1 })) all.push(settlement.id);
      assert.deepEqual(all, [...ids].reverse());
      const last = await client.settlements.get(ids[1] ?? "");
      assert.deepEqual([last.transactionCount, last.trigger, last.status], [1, "manual", "pending"]);
      const covered = await client.settlements.transactions(last.id);
      assert.deepEqual(
        covered.data.map((t) => t.amount),
        [700_000],
      );
      await assert.rejects(
        client.settlements.get("stl_00000000000000000000000000000000"),
        (error: unknown) => error instanceof VasApiError && error.code === "SETTLEMENT_NOT_FOUND",
      );
    });
  });
}
