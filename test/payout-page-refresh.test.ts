import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CLI } from "../src/core/actor.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";

// A pending payout's page reloads itself until the bank's answer is in (issue 43, item 8): a
// meta refresh while it is pending (no script: the CSP allows none inline), none once final.

const PASSWORD = "correct horse battery staple 42";
const REFRESH = /<meta http-equiv="refresh" content="5">/;

for (const dialect of DIALECTS) {
  describe(`a payout's page on ${dialect}`, () => {
    let h: Harness;

    before(async () => {
      // The sandbox bank settles at once: asked, then told, the payout is final.
      h = await createHarness({
        dialect,
        env: {
          SIGN_IN_RATE_LIMIT_PER_MIN: "0",
          SANDBOX_PAYOUT_SETTLE_MS: "0",
          SANDBOX_PAYOUT_REVERSE_MS: "0",
        },
      });
    });
    after(() => h.close());

    test("pending, it reloads every 5 seconds; final, it stops", async () => {
      const paid = SANDBOX_PAYEES.find((candidate) => candidate.outcome === "successful");
      assert.ok(paid);
      const email = `owner.${dialect}@refresh.example`;
      const { business } = await signedUpBusiness(h.services, {
        businessName: "Refresh Ltd",
        email,
        password: PASSWORD,
      });
      await verifyBusiness(h.services, business.businessId);
      const account = await h.services.accounts.generatePermanent(business, CLI, permanentInputOf());
      await h.services.collections.sandboxTransfer(business, {
        accountNumber: account.account.accountNumber,
        amount: 5_000_000,
      });
      const payout = await h.services.payouts.create(
        business,
        { amount: 100_000, bankCode: paid.bankCode, accountNumber: paid.accountNumber },
        { channel: "dashboard" },
      );
      assert.equal(payout.status, "pending");
      const owner = pageClient(h.app);
      assert.equal((await owner.signIn("/dashboard", email, PASSWORD)).statusCode, 303);

      const pending = (await owner.get(`/dashboard/payouts/${payout.id}`)).response;
      assert.equal(pending.statusCode, 200);
      assert.match(pending.body, REFRESH);
      assert.match(pending.body, /this page reloads every 5 seconds and shows it when it does/);
      assert.doesNotMatch(pending.body, /<script>/, "no inline script");

      await h.services.payoutTracker.run();
      await h.services.bankPayoutNotices?.run();
      await h.services.payoutTracker.run();
      assert.equal((await h.services.payoutListing.get(business, payout.id)).status, "successful");
      const final = (await owner.get(`/dashboard/payouts/${payout.id}`)).response;
      assert.doesNotMatch(final.body, REFRESH);
      assert.doesNotMatch(final.body, /reloads every 5 seconds/);
    });
  });
}
