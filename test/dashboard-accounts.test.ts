import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import { isUnverifiedNumberRefusal } from "../src/storage/errors.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, verifyBusiness } from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";

// Accounts from the dashboard (issue 28, item 9), on each database: issue a permanent or a
// temporary account from a form with the API's rules, re-issue only when the user says so, see
// an account's numbers, find it by a retired one, deactivate (with a tick) and reactivate.

const PASSWORD = "correct horse battery staple 42";
const BVN = "22212345678";

for (const dialect of DIALECTS) {
  describe(`accounts from the dashboard on ${dialect}`, () => {
    let h: Harness;
    let business: ForBusiness;
    let email: string;
    let serial = 0;

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      email = `owner.${dialect}@accountsfoods.example`;
      ({ business } = await signedUpBusiness(h.services, {
        businessName: "Accounts Foods",
        email,
        password: PASSWORD,
      }));
      await verifyBusiness(h.services, business.businessId);
    });
    after(() => h?.close());

    async function signedIn() {
      const client = pageClient(h.app);
      assert.equal((await client.signIn("/dashboard", email, PASSWORD)).statusCode, 303);
      /** Sends the issue form from its page, with its CSRF token. */
      const issue = async (form: Record<string, string>) => {
        const { token } = await client.get("/dashboard/accounts/new");
        return client.post("/dashboard/accounts/new", { _csrf: token ?? "", ...form });
      };
      return { client, issue };
    }

    const customerEmail = () => `customer${++serial}.${dialect}@buyers.example`;
    const numberIn = (location: unknown) => /\/dashboard\/accounts\/(\d{10})\?/.exec(String(location))?.[1];

    test("a permanent account issued from the form: its page says so, and the activity names it", async () => {
      const { client, issue } = await signedIn();
      const page = await client.get("/dashboard/accounts");
      assert.match(page.response.body, /href="\/dashboard\/accounts\/new">Issue an account</);
      const customer = customerEmail();
      const issued = await issue({
        kind: "permanent",
        name: "Ngozi Okafor",
        email: customer,
        identityType: "bvn",
        identityNumber: BVN,
      });
      assert.equal(issued.statusCode, 303, issued.body);
      const number = numberIn(issued.headers.location);
      assert.ok(number);
      assert.match(String(issued.headers.location), /\?done=issued$/);
      const shown = await client.get(String(issued.headers.location));
      assert.match(shown.response.body, /The account is issued: give the customer its number/);
      assert.match(shown.response.body, /Ngozi Okafor/);
      const [found] = await h.services.accounts.search(business, customer);
      assert.equal(found?.accountNumber, number);
      assert.equal(found?.isTemporary, false);
      const security = await client.get("/dashboard/security");
      assert.match(security.response.body, new RegExp(`Account issued: ${number}`));
      assert.doesNotMatch(
        shown.response.body + security.response.body,
        new RegExp(BVN),
        "the BVN is never shown",
      );
    });

    test("every field's problem at once, in the words of its label; the BVN is never sent back", async () => {
      const { issue } = await signedIn();
      const refused = await issue({
        kind: "permanent",
        name: "",
        email: "not-an-email",
        identityType: "bvn",
        identityNumber: "2221234567",
      });
      assert.equal(refused.statusCode, 400);
      assert.match(
        refused.body,
        /id="name-error">Customer&#39;s name is required<|id="name-error">Customer's name is required</,
      );
      assert.match(
        refused.body,
        /id="email-error">Customer&#39;s email is not an email address<|id="email-error">Customer's email is not an email address</,
      );
      assert.match(refused.body, /id="identityNumber-error">BVN must be exactly 11 digits</);
      assert.doesNotMatch(refused.body, /2221234567/);
      assert.match(refused.body, /value="not-an-email"/, "what was typed is kept, but the identity number");
      const tooMuch = await issue({
        kind: "temporary",
        name: "Temi Ade",
        email: customerEmail(),
        identityType: "nin",
        identityNumber: "123",
        duration: "0",
        expectedAmount: "99999999999",
      });
      assert.equal(tooMuch.statusCode, 400);
      assert.match(tooMuch.body, /NIN must be exactly 11 digits/);
      assert.match(tooMuch.body, /Minutes until it expires must be a whole number from 1 to 10080/);
      assert.match(
        tooMuch.body,
        /Expected amount must be at most NGN [\d,]+\.\d{2}, the most one transfer can be/,
      );
    });

    test("a temporary account with an expected amount and its policy", async () => {
      const { client, issue } = await signedIn();
      const issued = await issue({
        kind: "temporary",
        name: "Temi Ade",
        email: customerEmail(),
        identityType: "nin",
        identityNumber: "12345678901",
        duration: "90",
        expectedAmount: "2,500.50",
        amountPolicy: "atLeast",
      });
      assert.equal(issued.statusCode, 303, issued.body);
      const number = numberIn(issued.headers.location) as string;
      const account = await h.services.lifecycle.get(business, number);
      assert.equal(account.isTemporary, true);
      assert.equal(account.expectedAmount, 250_050);
      assert.equal(account.amountPolicy, "atLeast");
      assert.ok(account.expiresAt);
      assert.equal(Date.parse(account.expiresAt) - Date.parse(account.createdAt), 90 * 60_000);
      const shown = await client.get(`/dashboard/accounts/${number}`);
      assert.doesNotMatch(shown.response.body, /Deactivate/, "a temporary account expires instead");
    });

    test("a second permanent account for an email asks first; re-issued, the old number finds the account", async () => {
      const { client, issue } = await signedIn();
      const customer = customerEmail();
      const form = {
        kind: "permanent",
        name: "Bayo Lawal",
        email: customer,
        identityType: "bvn",
        identityNumber: BVN,
      };
      const first = numberIn((await issue(form)).headers.location) as string;
      const asked = await issue(form);
      assert.equal(asked.statusCode, 409);
      assert.match(
        asked.body,
        new RegExp(`already has a permanent account, <a href="/dashboard/accounts/${first}">${first}</a>`),
      );
      assert.equal(
        (await h.services.accounts.search(business, customer))[0]?.accountNumber,
        first,
        "nothing changed",
      );
      const replaced = await issue({ ...form, replace: "yes" });
      assert.equal(replaced.statusCode, 303);
      assert.match(String(replaced.headers.location), /\?done=reissued$/);
      const second = numberIn(replaced.headers.location) as string;
      assert.notEqual(second, first);

      const page = await client.get(`/dashboard/accounts/${second}`);
      assert.match(page.response.body, /Its numbers/);
      assert.match(page.response.body, new RegExp(`${second} <span class="help">\\(now\\)</span>`));
      assert.match(page.response.body, new RegExp(`data-label="Number">${first}<`));

      const old = await client.get(`/dashboard/accounts/${first}`);
      assert.equal(old.response.statusCode, 303);
      assert.equal(old.response.headers.location, `/dashboard/accounts/${second}?replaced=${first}`);
      const landed = await client.get(String(old.response.headers.location));
      assert.match(
        landed.response.body,
        new RegExp(
          `${first} was this account&#39;s number before it was re-issued|${first} was this account's number before it was re-issued`,
        ),
      );
      const forged = await client.get(`/dashboard/accounts/${second}?replaced=0123456789`);
      assert.doesNotMatch(forged.response.body, /before it was re-issued/, "only a number it had");

      const searched = await client.get(`/dashboard/accounts?q=${first}`);
      assert.match(searched.response.body, new RegExp(`href="/dashboard/accounts/${second}"`));
      assert.match(searched.response.body, /before it was re-issued: its number is now/);
    });

    test("deactivate asks for a tick and refuses transfers until reactivated", async () => {
      const { client, issue } = await signedIn();
      const number = numberIn(
        (
          await issue({
            kind: "permanent",
            name: "Kemi Bello",
            email: customerEmail(),
            identityType: "bvn",
            identityNumber: BVN,
          })
        ).headers.location,
      ) as string;
      const send = async (action: string, form: Record<string, string> = {}) => {
        const { token } = await client.get(`/dashboard/accounts/${number}`);
        return client.post(`/dashboard/accounts/${number}/${action}`, { _csrf: token ?? "", ...form });
      };
      const unticked = await send("deactivate");
      assert.equal(unticked.statusCode, 400);
      assert.match(unticked.body, /Tick the box beside Deactivate to confirm/);
      assert.equal((await h.services.lifecycle.get(business, number)).status, "active");

      const done = await send("deactivate", { confirm: "yes" });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, `/dashboard/accounts/${number}?done=deactivated`);
      assert.equal((await h.services.lifecycle.get(business, number)).status, "deactivated");
      await assert.rejects(
        h.services.collections.sandboxTransfer(business, { accountNumber: number, amount: 10_000 }),
        (error: { statusCode?: number }) => error.statusCode !== undefined && error.statusCode < 500,
      );
      const page = await client.get(`/dashboard/accounts/${number}?done=deactivated`);
      assert.match(page.response.body, /The account is deactivated/);
      assert.match(page.response.body, />Reactivate</);

      assert.equal((await send("reactivate")).statusCode, 303);
      assert.equal((await h.services.lifecycle.get(business, number)).status, "active");
      const paid = await h.services.collections.sandboxTransfer(business, {
        accountNumber: number,
        amount: 10_000,
      });
      assert.equal(paid.transaction.amount, 10_000);
    });

    // Issue 46, item 6: who may pay in, changed from the account's page as PATCH changes it.
    test("who may pay in: one payer a line, the policy, every problem by its line; audited", async () => {
      const { client, issue } = await signedIn();
      const number = numberIn(
        (
          await issue({
            kind: "permanent",
            name: "Femi Ojo",
            email: customerEmail(),
            identityType: "bvn",
            identityNumber: BVN,
          })
        ).headers.location,
      ) as string;
      const send = async (form: Record<string, string>) => {
        const { token } = await client.get(`/dashboard/accounts/${number}`);
        return client.post(`/dashboard/accounts/${number}/payers`, { _csrf: token ?? "", ...form });
      };
      const shown = await client.get(`/dashboard/accounts/${number}`);
      assert.match(shown.response.body, /Anyone may pay into this account/);
      assert.match(
        shown.response.body,
        /<input type="radio" id="onMismatch" name="onMismatch" value="decline" checked>/,
      );

      const refused = await send({ allowedPayers: "12345 058\r\nNgozi Okafor\r\n!!!", onMismatch: "keep" });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.match(
        refused.body,
        /id="allowedPayers-error">Who may pay in: line 1: an account is its 10-digit number, then its bank&#39;s code \(3 to 6 digits\), like 0123456789 058; line 3: a name is at most 200 characters, with a letter or a digit</,
      );
      assert.match(
        refused.body,
        /id="onMismatch-error">Choose what becomes of a payment from anyone else: decline it or hold it</,
      );
      assert.match(refused.body, /2 fields need a change/);
      assert.match(refused.body, />12345 058\r?\nNgozi Okafor\r?\n!!!<\/textarea>/, "what was typed is kept");
      const unchanged = await h.services.lifecycle.get(business, number);
      assert.deepEqual([unchanged.allowedPayers, unchanged.onMismatch], [null, "decline"]);
      const tooMany = await send({
        allowedPayers: Array.from({ length: 21 }, (_, i) => `Payer Number${i}`).join("\n"),
        onMismatch: "hold",
      });
      assert.equal(tooMany.statusCode, 400);
      assert.match(tooMany.body, /at most 20 payers, one a line \(21 given\)/);

      const saved = await send({ allowedPayers: "0123456789 058\n\n  Ngozi Okafor  \n", onMismatch: "hold" });
      assert.equal(saved.statusCode, 303, saved.body);
      assert.equal(saved.headers.location, `/dashboard/accounts/${number}?done=payers`);
      const account = await h.services.lifecycle.get(business, number);
      assert.deepEqual(account.allowedPayers, [
        { accountNumber: "0123456789", bankCode: "058" },
        { name: "Ngozi Okafor" },
      ]);
      assert.equal(account.onMismatch, "hold");
      const page = await client.get(String(saved.headers.location));
      assert.match(page.response.body, /Who may pay in is saved: it applies from the next payment/);
      assert.match(page.response.body, /a payment from anyone else is held until you accept or return it/);
      assert.match(page.response.body, /Account 0123456789 at the bank with code 058/);
      assert.match(
        page.response.body,
        />0123456789 058\nNgozi Okafor<\/textarea>/,
        "the form holds the rules now",
      );
      const held = await h.services.collections.sandboxTransfer(business, {
        accountNumber: number,
        amount: 10_000,
        payerName: "Chidi Eze",
      });
      assert.equal(held.transaction.status, "held", "the next payment from anyone else");

      const anyone = await send({ allowedPayers: "", onMismatch: "decline" });
      assert.equal(anyone.statusCode, 303);
      assert.equal((await h.services.lifecycle.get(business, number)).allowedPayers, null);
      const security = await client.get("/dashboard/security");
      const audited = security.response.body.match(
        new RegExp(`Who may pay into an account changed: ${number}`, "g"),
      );
      assert.equal(audited?.length, 2, "each change in the activity, with the account's number");

      const stranger = `stranger.${dialect}@elsewhere.example`;
      const { business: elsewhere } = await signedUpBusiness(h.services, {
        businessName: "Elsewhere Foods",
        email: stranger,
        password: PASSWORD,
      });
      await verifyBusiness(h.services, elsewhere.businessId);
      const other = pageClient(h.app);
      assert.equal((await other.signIn("/dashboard", stranger, PASSWORD)).statusCode, 303);
      const { token } = await other.get("/dashboard/accounts");
      const theirs = await other.post(`/dashboard/accounts/${number}/payers`, {
        _csrf: token ?? "",
        allowedPayers: "Ada Obi",
        onMismatch: "hold",
      });
      assert.equal(theirs.statusCode, 404, "another business's account");
      assert.equal((await h.services.lifecycle.get(business, number)).allowedPayers, null, "untouched");
    });

    // Issue 43, item 1: the rule is the domain's, so the form refuses as the API does, and the
    // database refuses a number for such a business even when asked directly.
    test("a business not verified, or suspended, issues no number from the form", async () => {
      const ownerEmail = `owner.${dialect}@unverified.example`;
      const { business: unverified } = await signedUpBusiness(h.services, {
        businessName: "Not Yet Verified",
        email: ownerEmail,
        password: PASSWORD,
      });
      const client = pageClient(h.app);
      assert.equal((await client.signIn("/dashboard", ownerEmail, PASSWORD)).statusCode, 303);
      const attempt = async () => {
        const form = await client.get("/dashboard/accounts/new");
        assert.match(form.response.body, /Your business is not verified/);
        assert.doesNotMatch(form.response.body, /Issue the account/, "no form to fill in");
        return client.post("/dashboard/accounts/new", {
          _csrf: form.token ?? "",
          kind: "permanent",
          name: "Early Customer",
          email: customerEmail(),
          identityType: "bvn",
          identityNumber: BVN,
        });
      };
      const refused = await attempt();
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /Submit its details under Verification/);
      assert.equal((await h.services.accounts.list(unverified, { page: 1, limit: 1 })).pagination.total, 0);
      await assert.rejects(
        h.services.accounts.generatePermanent(unverified, CLI, {
          name: "Early Customer",
          email: customerEmail(),
          identity: { type: "bvn", number: BVN },
        }),
        { code: "BUSINESS_NOT_VERIFIED" },
      );

      await verifyBusiness(h.services, unverified.businessId);
      await h.services.businesses.setVerificationStatus(unverified.businessId, "rejected", CLI, "Suspended");
      assert.equal((await attempt()).statusCode, 403, "suspended: refused the same way");
      assert.equal((await h.services.accounts.list(unverified, { page: 1, limit: 1 })).pagination.total, 0);
    });

    test("the database refuses a number for a business that is not verified", async () => {
      const { businessId } = await h.createBusiness({ name: "Straight To The Table", status: "in_progress" });
      const row = {
        id: `acc_${businessId}`,
        business_id: businessId,
        kind: "permanent" as const,
        account_number: "0000000019",
        account_name: "Straight/Direct",
        customer_name: "Direct",
        email: "direct@example.com",
        identity_type: "bvn" as const,
        identity_fingerprint: "f".repeat(64),
        identity_last4: "1234",
        version: 1,
        ordinal: 1,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      };
      await h.storage.db.insertInto("accounts").values(row).execute();
      const number = {
        account_number: row.account_number,
        account_id: row.id,
        business_id: businessId,
        version: 1,
        reference: `ref-${businessId}`,
        issued_at: row.created_at,
        retired_at: null,
      };
      await assert.rejects(h.storage.db.insertInto("account_numbers").values(number).execute(), (error) =>
        isUnverifiedNumberRefusal(error),
      );
      await h.services.businesses.setVerificationStatus(businessId, "completed", CLI);
      await h.storage.db.insertInto("account_numbers").values(number).execute();
    });
  });
}
