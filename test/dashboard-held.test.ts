import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { CLI } from "../src/core/actor.js";
import { openRecordingPage, signInInBrowser, skipWithoutBrowser as skip } from "./helpers/browser.js";
import { browserSuite } from "./helpers/browser-suite.js";
import { DIALECTS } from "./helpers/databases.js";
import { permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { signedUpOwner } from "./helpers/members.js";
import { notification } from "./helpers/notifications.js";

// Issue 46, item 6, in a real browser: a credit held by its account's rules is shown on its
// payment's page as held, and accepted from there into the available balance.

const PASSWORD = "correct horse battery staple 42";

for (const dialect of DIALECTS) {
  describe(`held credits in the dashboard, in a browser, on ${dialect}`, { skip }, () => {
    // Registered before the suite's own closing: hooks run in the order they are registered.
    after(() => assertLedgerInvariants(suite.h.storage.db));
    const suite = browserSuite({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });

    test("a held payment is shown held and accepted from its page", async () => {
      const { h, browser, origin } = suite;
      const email = `owner.${dialect}@heldpay.example`;
      const user = await signedUpOwner(h.services, { businessName: "Held Pay", email, password: PASSWORD });
      const forBusiness = { businessId: user.businessId as string, businessName: "Held Pay" };
      await verifyBusiness(h.services, forBusiness.businessId);
      const account = await h.services.accounts.generatePermanent(forBusiness, CLI, {
        ...permanentInputOf(),
        allowedPayers: [{ name: "Ada Obi" }],
        onMismatch: "hold",
      });
      const payer = {
        name: "Chidi Eze",
        accountNumber: "0987654321",
        bankName: "Other Bank",
        bankCode: "044",
      };
      const { transaction } = await h.services.collections.receive(
        notification(account.account.accountNumber, 30_000, new Date().toISOString(), { payer }),
      );
      assert.equal(transaction.status, "held");

      const { page } = await openRecordingPage(browser);
      await signInInBrowser(page, origin, { email, password: PASSWORD });
      await page.getByRole("heading", { name: "Held Pay" }).waitFor();

      await page.goto(`${origin}/dashboard/transactions/${transaction.id}`);
      await page.getByRole("heading", { name: "Held: not in your balance yet" }).waitFor();
      await page.getByRole("button", { name: "Accept payment" }).click();
      assert.match(
        await page.getByRole("status").innerText(),
        /Accepted: the payment is in your available balance/,
      );
      assert.equal(await page.getByRole("heading", { name: "Held: not in your balance yet" }).count(), 0);
      assert.match(await page.locator("dl.details").innerText(), /Net to your balance\s+NGN 300\.00/);

      const after = await h.services.collections.getTransaction(forBusiness, transaction.id);
      assert.equal(after.status, "successful");
      const balance = await h.services.collections.balance(forBusiness);
      assert.deepEqual([balance.held, balance.available], [0, 30_000]);
    });
  });
}
