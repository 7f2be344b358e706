import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";

// Errors people understand (issue 28, item 6), on each database: a refused form shows every
// field's problem at once, beside its field (linked from the summary), in the words of its
// label, never the API's names for them; and keeps what was typed.

const PASSWORD = "correct horse battery staple 42";

/** The page's problem beside `field`, unescaped. */
const besideField = (body: string, field: string) =>
  new RegExp(`id="${field}-error">([^<]*)<`).exec(body)?.[1]?.replaceAll("&#39;", "'");

for (const dialect of DIALECTS) {
  describe(`form errors in the words of their labels on ${dialect}`, () => {
    let h: Harness;
    let client: ReturnType<typeof pageClient>;
    let business: ForBusiness;

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      const email = `owner.${dialect}@formfoods.example`;
      ({ business } = await signedUpBusiness(h.services, {
        businessName: "Form Foods",
        email,
        password: PASSWORD,
      }));
      await verifyBusiness(h.services, business.businessId);
      client = pageClient(h.app);
      assert.equal((await client.signIn("/dashboard", email, PASSWORD)).statusCode, 303);
    });
    after(() => h?.close());

    const send = async (from: string, to: string, form: Record<string, string>) => {
      const { token } = await client.get(from);
      return client.post(to, { _csrf: token ?? "", ...form });
    };

    /** Each field's problem is beside it, linked from the summary, and no API name shows. */
    function assertFields(body: string, expected: Record<string, string>) {
      for (const [field, message] of Object.entries(expected)) {
        assert.equal(besideField(body, field), message, field);
        assert.match(body, new RegExp(`<a href="#${field}">`), `the summary links ${field}`);
        assert.match(body, new RegExp(`id="${field}"[^>]*aria-invalid="true"`), `${field} is marked invalid`);
      }
      assert.match(
        body,
        new RegExp(
          `${Object.keys(expected).length === 1 ? "One field needs" : `${Object.keys(expected).length} fields need`} a change`,
        ),
      );
      assert.doesNotMatch(body, /\b(accountNumber|bankCode|url|email|amount) must\b/);
    }

    test("a payout: the bank, the account number and the amount at once", async () => {
      const refused = await send("/dashboard/payouts", "/dashboard/payouts/review", {
        bankCode: "",
        accountNumber: "12345",
        amount: "ten naira",
        reference: "has spaces",
      });
      assert.equal(refused.statusCode, 400);
      assertFields(refused.body, {
        bankCode: "Bank is required",
        accountNumber: "Account number must be exactly 10 digits",
        amount: "Enter the amount in naira, like 1500 or 1500.50",
        reference: "Your reference must be 1 to 100 of A-Z a-z 0-9 . _ : -",
      });
      assert.match(refused.body, /value="12345"/);
    });

    test("the settlement account: the bank and the account number at once", async () => {
      const refused = await send("/dashboard/settlements", "/dashboard/settlements/account/review", {
        bankCode: "",
        accountNumber: "abc",
      });
      assert.equal(refused.statusCode, 400);
      assertFields(refused.body, {
        bankCode: "Bank is required",
        accountNumber: "Account number must be exactly 10 digits",
      });
    });

    test("a webhook endpoint: an empty URL is required, a bad one is refused as the URL", async () => {
      const empty = await send("/dashboard/webhooks", "/dashboard/webhooks", { url: "" });
      assert.equal(empty.statusCode, 400);
      assertFields(empty.body, { url: "URL is required" });
      const relative = await send("/dashboard/webhooks", "/dashboard/webhooks", { url: "/hooks" });
      assert.equal(relative.statusCode, 400);
      assertFields(relative.body, { url: "URL must be an absolute http or https URL" });
      assert.match(relative.body, /value="\/hooks"/);
    });

    test("a refund: the amount and the reason at once", async () => {
      const payer = SANDBOX_PAYEES.find(
        (payee) => payee.outcome === "successful" && payee.accountName !== null,
      );
      assert.ok(payer);
      const account = await h.services.accounts.generatePermanent(business, CLI, permanentInputOf());
      const paid = await h.services.collections.sandboxTransfer(business, {
        accountNumber: account.account.accountNumber,
        amount: 500_000,
        payerName: payer.accountName as string,
        payerAccountNumber: payer.accountNumber,
        payerBankName: payer.bankName,
        payerBankCode: payer.bankCode,
      });
      const url = `/dashboard/transactions/${paid.transaction.id}`;
      const refused = await send(url, `${url}/refund`, { amount: "5,000.001", reason: "x".repeat(101) });
      assert.equal(refused.statusCode, 400);
      assertFields(refused.body, {
        amount: "Enter the amount in naira, like 1500 or 1500.50",
        reason: "Reason must be at most 100 characters",
      });
    });

    test("the settlement schedule: the reserve and the daily time beside their fields", async () => {
      const reserve = await send("/dashboard/settlements", "/dashboard/settlements/schedule", {
        schedule: "manual",
        reserve: "lots",
      });
      assert.equal(reserve.statusCode, 400);
      assertFields(reserve.body, { reserve: "Enter the amount in naira, like 1500 or 1500.50" });
      const daily = await send("/dashboard/settlements", "/dashboard/settlements/schedule", {
        schedule: "daily",
      });
      assert.equal(daily.statusCode, 400);
      assertFields(daily.body, { dailyAt: "Daily at must be a time, like 17:00, for a daily schedule" });
    });

    test("a sandbox transfer: the amount and the API's refusal of a field, in the form's words", async () => {
      const account = await h.services.accounts.generatePermanent(
        business,
        CLI,
        permanentInputOf({ email: `sandbox.${dialect}@customers.example` }),
      );
      const url = `/dashboard/accounts/${account.account.accountNumber}`;
      const amount = await send(url, `${url}/sandbox-transfer`, { amount: "1.234", payerAccount: "none" });
      assert.equal(amount.statusCode, 400);
      assertFields(amount.body, { amount: "Enter the amount in naira, like 1500 or 1500.50" });
      const payer = await send(url, `${url}/sandbox-transfer`, {
        amount: "100",
        payerAccount: "none",
        payerName: "x".repeat(500),
      });
      assert.equal(payer.statusCode, 400);
      assert.match(payer.body, /id="payerName-error">Payer(&#39;|')s name /);
      assert.doesNotMatch(payer.body, /payerName must/);

      // An amount the account does not take: in naira, beside the amount (issue 43, item 7).
      const temporary = await h.services.accounts.generateTemporary(business, CLI, {
        ...permanentInputOf({ email: `exact.${dialect}@customers.example` }),
        durationMinutes: 60,
        expectedAmount: 2_500_000,
        amountPolicy: "exact",
      });
      const exactUrl = `/dashboard/accounts/${temporary.accountNumber}`;
      const wrong = await send(exactUrl, `${exactUrl}/sandbox-transfer`, {
        amount: "1,000",
        payerAccount: "none",
      });
      assert.equal(wrong.statusCode, 422);
      assertFields(wrong.body, { amount: "This account takes exactly NGN 25,000.00, not NGN 1,000.00" });
      assert.doesNotMatch(wrong.body, /kobo/);
    });

    test("an invitation: their email in the words of its label", async () => {
      const refused = await send("/dashboard/team", "/dashboard/team/invitations", {
        email: "someone@",
        role: "viewer",
      });
      assert.equal(refused.statusCode, 400);
      assertFields(refused.body, { email: "Their email is not an email address" });
      assert.match(refused.body, /value="someone@"/);
    });
  });
}
