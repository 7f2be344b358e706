import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AppError } from "../src/errors.js";
import { assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { notification as makeNotification } from "./helpers/notifications.js";

// Payment policies for an expected amount (issue 17): exact, atLeast and accumulate, refused at
// the bank when they do not take a transfer, and the payment's progress on the account.

for (const dialect of DIALECTS) {
  describe(`amount policies on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Policy Ltd" });
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    const notification = (accountNumber: string, amount: number) =>
      makeNotification(accountNumber, amount, new Date().toISOString());
    const receive = (body: ReturnType<typeof notification>) => h.services.collections.receive(body);
    const get = async (url: string) => {
      const response = await h.request({ url: `${API}${url}`, as: business });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };

    test("amount policies: exact, atLeast and accumulate, with the payment's progress on the account", async () => {
      const temporary = async (body: Record<string, unknown>) => {
        const response = await h.request({
          url: `${API}/account/generate/temporary`,
          body: customer({ duration: 600, ...body }),
          as: business,
        });
        assert.equal(response.statusCode, 201, response.body);
        return response.json().data as { accountNumber: string; amountPolicy: string | null };
      };
      const detail = async (number: string) => (await get(`/account/${number}`)).data;
      const progress = async (number: string) => {
        const { amountPaid, amountOutstanding, paymentStatus } = await detail(number);
        return { amountPaid, amountOutstanding, paymentStatus };
      };
      const refusedAs = async (body: ReturnType<typeof notification>, code: string) => {
        const refusal = await receive(body).catch((error: unknown) => error);
        assert.ok(refusal instanceof AppError && refusal.code === code, `${code}: ${String(refusal)}`);
        assert.equal(refusal.statusCode, 422);
        return refusal.message;
      };

      const exact = await temporary({ expectedAmount: 50_000 });
      assert.equal(exact.amountPolicy, "exact", "exact is the default");
      assert.deepEqual(await progress(exact.accountNumber), {
        amountPaid: 0,
        amountOutstanding: 50_000,
        paymentStatus: "pending",
      });
      assert.match(
        await refusedAs(notification(exact.accountNumber, 50_001), "AMOUNT_MISMATCH"),
        /accepts exactly 50000 kobo \(NGN 500\.00\), not 50001/,
      );
      await receive(notification(exact.accountNumber, 50_000));
      assert.deepEqual(await progress(exact.accountNumber), {
        amountPaid: 50_000,
        amountOutstanding: 0,
        paymentStatus: "paid",
      });
      await refusedAs(notification(exact.accountNumber, 50_000), "ALREADY_PAID");

      const atLeast = await temporary({ expectedAmount: 50_000, amountPolicy: "atLeast" });
      assert.equal(atLeast.amountPolicy, "atLeast");
      assert.match(
        await refusedAs(notification(atLeast.accountNumber, 49_999), "AMOUNT_MISMATCH"),
        /accepts at least 50000 kobo/,
      );
      const over = await receive(notification(atLeast.accountNumber, 65_000));
      assert.equal(over.transaction.amount, 65_000, "an overpayment is credited in full");
      assert.deepEqual(await progress(atLeast.accountNumber), {
        amountPaid: 65_000,
        amountOutstanding: 0,
        paymentStatus: "overpaid",
      });
      await refusedAs(notification(atLeast.accountNumber, 50_000), "ALREADY_PAID");

      const accumulate = await temporary({ expectedAmount: 100_000, amountPolicy: "accumulate" });
      const part = await receive(notification(accumulate.accountNumber, 30_000));
      assert.deepEqual(part.payment, { expectedAmount: 100_000, amountPaid: 30_000, variance: -70_000 });
      await receive(notification(accumulate.accountNumber, 30_000));
      assert.deepEqual(await progress(accumulate.accountNumber), {
        amountPaid: 60_000,
        amountOutstanding: 40_000,
        paymentStatus: "partially_paid",
      });
      const reaching = await receive(notification(accumulate.accountNumber, 45_000));
      assert.equal(reaching.transaction.amount, 45_000, "the transfer that reaches it is taken in full");
      assert.deepEqual(reaching.payment, { expectedAmount: 100_000, amountPaid: 105_000, variance: 5_000 });
      assert.deepEqual(await progress(accumulate.accountNumber), {
        amountPaid: 105_000,
        amountOutstanding: 0,
        paymentStatus: "overpaid",
      });
      await refusedAs(notification(accumulate.accountNumber, 1), "ALREADY_PAID");
      const full = await detail(accumulate.accountNumber);
      assert.equal(full.amountPolicy, "accumulate");
      assert.equal(full.totalReceived, 105_000);

      const open = await temporary({});
      assert.equal(open.amountPolicy, null);
      assert.deepEqual(await progress(open.accountNumber), {
        amountPaid: 0,
        amountOutstanding: null,
        paymentStatus: null,
      });
      const bad = (body: Record<string, unknown>) =>
        h.request({ url: `${API}/account/generate/temporary`, body: customer(body), as: business });
      assertValidation(await bad({ amountPolicy: "atLeast" }), "amountPolicy needs expectedAmount");
      assertValidation(
        await bad({ expectedAmount: 100, amountPolicy: "ATLEAST" }),
        "amountPolicy must be one of exact, atLeast, accumulate",
      );
      assertValidation(
        await bad({ expectedAmount: 100, amountPolicy: 1 }),
        "amountPolicy must be one of exact, atLeast, accumulate",
      );
    });
  });
}
