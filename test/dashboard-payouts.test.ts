import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { totpCode } from "../src/businesses/totp.js";
import { CLI } from "../src/core/actor.js";
import { DEFAULT_CHARGES } from "../src/ledger/charges.js";
import { setChargeSchedule } from "../src/ledger-audit/charges.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { openRecordingPage, signInInBrowser, skipWithoutBrowser as skip } from "./helpers/browser.js";
import { browserSuite } from "./helpers/browser-suite.js";
import { DIALECTS } from "./helpers/databases.js";
import { permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { lastMail, linkIn } from "./helpers/mail-files.js";
import { signedUpOwner } from "./helpers/members.js";

// Money out in a real browser (issue 26's browser test): fund an account in the sandbox, resolve
// a destination, confirm a payout with its fee shown, see it successful, and refund a payment,
// the owner's two-factor code asked at each step; an operator then finds the payout in the console.

const PASSWORD = "correct horse battery staple 42";
const STEP_MS = 30_000;
const HOUR_MS = 3_600_000;
const MEMBER_PASSWORD = "kano market before the rains 8";

for (const dialect of DIALECTS) {
  describe(`money out in the dashboard, in a browser, on ${dialect}`, { skip }, () => {
    // The service's clock runs ahead on demand, so each two-factor code is a step of its own.
    let offset = 0;
    const now = () => Date.now() + offset;

    const suite = browserSuite({
      dialect,
      now,
      // The sandbox's bank finishes a payout as soon as it is asked about.
      // A new authenticator moves no money for an hour (issue 43): the clock crosses it.
      env: {
        SIGN_IN_RATE_LIMIT_PER_MIN: "0",
        SANDBOX_PAYOUT_SETTLE_MS: "0",
        SANDBOX_PAYOUT_REVERSE_MS: "0",
        MONEY_COOL_OFF_HOURS: "1",
        DASHBOARD_SESSION_IDLE_MINUTES: "180",
      },
    });

    /** What the bank's side does between two looks at a page: asked, it answers; told, it notifies. */
    async function bankCatchesUp(): Promise<void> {
      await suite.h.services.payoutTracker.run();
      await suite.h.services.bankPayoutNotices?.run();
    }

    test("fund in the sandbox, resolve a destination, confirm a payout with its fee, see it successful, refund a payment", async () => {
      const { h, browser, origin } = suite;
      const email = `owner.${dialect}@kolapayouts.example`;
      const user = await signedUpOwner(h.services, {
        businessName: "Kola Payouts",
        email,
        password: PASSWORD,
      });
      const forBusiness = { businessId: user.businessId as string, businessName: "Kola Payouts" };
      await verifyBusiness(h.services, forBusiness.businessId);
      const { secret } = await h.services.secondFactor.beginTotp(user.id);
      const code = () => {
        offset += STEP_MS;
        return totpCode(secret, now());
      };
      await h.services.secondFactor.confirmTotp(user.id, code(), PASSWORD);
      offset += HOUR_MS; // past the new authenticator's cool-off
      const account = await h.services.accounts.generatePermanent(forBusiness, CLI, permanentInputOf());
      const accountNumber = account.account.accountNumber;

      const { context, page, requested, problems } = await openRecordingPage(browser);

      await signInInBrowser(page, origin, { email, password: PASSWORD, code });
      await page.getByRole("heading", { name: "Kola Payouts" }).waitFor();

      // Fund the account from a sandbox account a refund can reach (the form's first choice).
      await page.goto(`${origin}/dashboard/accounts/${accountNumber}`);
      await page.getByLabel("Amount (NGN)").fill("50,000");
      const payer = await page.getByLabel("Paid from").inputValue();
      assert.notEqual(payer, "none", "a named sandbox account is the default payer");
      await page.getByRole("button", { name: "Send the transfer" }).click();
      await page.getByRole("cell", { name: "NGN 50,000.00" }).first().waitFor();

      // The operator charges VAT on fees and the stamp duty (issue 46): the review shows each on its line.
      await setChargeSchedule(h.storage.db, DEFAULT_CHARGES, new Date(now()).toISOString());
      // A payout: the bank, the number, the amount; the review names the account, the fee and its charges.
      const destination = SANDBOX_PAYEES.find(
        (p) => p.outcome === "successful" && `${p.bankCode}:${p.accountNumber}` !== payer,
      );
      assert.ok(destination?.accountName);
      await page.getByRole("link", { name: "Payouts" }).click();
      await page.getByLabel("Bank").selectOption({ label: destination.bankName });
      await page.getByLabel("Account number").fill(destination.accountNumber);
      await page.getByLabel("Amount (NGN)").fill("12,000");
      await page.getByLabel("Narration").fill("Equipment lease");
      await page.getByRole("button", { name: "Review the payout" }).click();
      await page.getByRole("heading", { name: "Review the payout" }).waitFor();
      const review = await page.locator("dl.details").innerText();
      assert.match(review, new RegExp(`To\\s+${destination.accountName}`));
      assert.match(review, /Fee\s+NGN 25\.00/);
      assert.match(review, /VAT on the fee\s+NGN 1\.88/, "7.5 % of NGN 25, half up");
      assert.match(review, /Stamp duty\s+NGN 50\.00/, "NGN 12,000 is NGN 10,000 or more");
      assert.match(review, /Total from your balance\s+NGN 12,076\.88 of NGN 50,000\.00 available/);

      // Without the right code nothing is sent; with it, the payout is made and pending.
      await page.getByLabel("Two-factor code").fill("000000");
      await page.getByRole("button", { name: `Send NGN 12,000.00 to ${destination.accountName}` }).click();
      assert.match(await page.getByRole("alert").innerText(), /That code is not right/);
      await page.getByLabel("Two-factor code").fill(code());
      await page.getByRole("button", { name: `Send NGN 12,000.00 to ${destination.accountName}` }).click();
      await page.getByRole("heading", { name: `Payout to ${destination.accountName}` }).waitFor();
      assert.match(await page.locator("dl.details").innerText(), /Status\s+Pending/);
      await bankCatchesUp();
      await page.reload();
      const paid = await page.locator("dl.details").innerText();
      assert.match(paid, /Status\s+Successful/);
      assert.match(paid, /Fee\s+NGN 25\.00\s+VAT on the fee\s+NGN 1\.88\s+Stamp duty\s+NGN 50\.00/);
      // Its NIP session id, what any bank traces it by, is on its page; the list finds it by it.
      const sessionId = /NIP session id\s+(\d{30})/.exec(paid)?.[1];
      assert.ok(sessionId, "the payout's page shows its NIP session id");
      const payoutUrl = page.url();
      await page.getByRole("link", { name: "Payouts", exact: true }).first().click();
      assert.match(await page.locator("dl.figures").innerText(), /Paid out\s+NGN\s12,000\.00/);
      await page.getByLabel("NIP session id").fill(sessionId);
      await page.getByRole("button", { name: "Show" }).click();
      const found = page.getByRole("table", { name: "Payouts, newest first" });
      assert.equal(
        await found.getByRole("row").count(),
        2,
        "the header and the one payout with that session id",
      );
      assert.equal(await found.getByRole("link").first().getAttribute("href"), new URL(payoutUrl).pathname);

      // A refund of part of the payment, from its page.
      await page.getByRole("link", { name: "Transactions" }).click();
      await page.getByRole("link", { name: /^Payment of NGN 50,000\.00/ }).click();
      await page.getByRole("heading", { name: /^Payment from / }).waitFor();
      assert.equal(
        await page.getByLabel("Amount (NGN)").inputValue(),
        "50000.00",
        "the whole payment is offered",
      );
      await page.getByLabel("Amount (NGN)").fill("5,000");
      await page.getByLabel("Reason").fill("Returned item");
      await page.getByLabel("Two-factor code").fill(code());
      await page.getByRole("button", { name: "Refund" }).click();
      await page.getByRole("heading", { name: /^Payout to / }).waitFor();
      const refund = await page.locator("dl.details").innerText();
      assert.match(refund, /Amount\s+NGN 5,000\.00/);
      assert.match(refund, /Narration\s+Returned item/);
      await bankCatchesUp();
      await page.getByRole("link", { name: /^txn_/ }).click();
      assert.match(await page.locator("dl.details").innerText(), /Refunded\s+NGN 5,000\.00/);
      const refunds = page.getByRole("table", { name: "Payouts, newest first" });
      assert.match(await refunds.innerText(), /NGN 5,000\.00[\s\S]*Successful/);

      const balance = await h.services.collections.balance(forBusiness);
      assert.deepEqual(
        [balance.available, balance.pending, balance.totalPaidOut],
        // The payout: its fee, VAT 188 and stamp duty 5,000; the refund (under NGN 10,000): fee and VAT 75.
        [5_000_000 - 1_202_500 - 188 - 5_000 - 501_000 - 75, 0, 1_700_000],
        "the payout and the refund are paid out, each with its fee and charges",
      );
      assert.deepEqual(
        requested.filter((url) => !url.startsWith(`${origin}/`)),
        [],
        "nothing loads from anywhere but this server",
      );
      assert.deepEqual(problems, [], "no script error, no CSP violation");
      await context.close();
    });

    // Issue 43, item 3: a finance member who never set up two-factor tries to pay out and is led
    // to set it up; the new authenticator waits out its cool-off (the injected clock crosses
    // it); and someone holding the password and a recovery code cannot turn it off.
    test("a finance member is led to set up two-factor, waits out its cool-off, then pays; a recovery code turns nothing off", async () => {
      const { h, browser, origin } = suite;
      const ownerEmail = `owner2.${dialect}@ladipayouts.example`;
      const owner = await signedUpOwner(h.services, {
        businessName: "Ladi Payouts",
        email: ownerEmail,
        password: PASSWORD,
      });
      const forBusiness = { businessId: owner.businessId as string, businessName: "Ladi Payouts" };
      await verifyBusiness(h.services, forBusiness.businessId);
      const account = await h.services.accounts.generatePermanent(forBusiness, CLI, permanentInputOf());
      await h.services.collections.sandboxTransfer(forBusiness, {
        accountNumber: account.account.accountNumber,
        amount: 5_000_000,
      });
      const email = `finance.${dialect}@ladipayouts.example`;
      await h.services.invitations.invite(forBusiness.businessId, owner.id, email, "finance");
      const link = linkIn(await lastMail({ dir: h.dir, mailer: h.services.mailer }, email, /^Join /), "http");
      await h.services.invitations.accept(new URL(link).searchParams.get("token") ?? "", MEMBER_PASSWORD);
      const [destination] = SANDBOX_PAYEES;
      assert.ok(destination?.accountName);

      const { context, page, problems } = await openRecordingPage(browser);
      await signInInBrowser(page, origin, { email, password: MEMBER_PASSWORD });
      await page.getByRole("heading", { name: "Ladi Payouts" }).waitFor();
      const review = async () => {
        await page.goto(`${origin}/dashboard/payouts`);
        await page.getByLabel("Bank").selectOption({ label: destination.bankName });
        await page.getByLabel("Account number").fill(destination.accountNumber);
        await page.getByLabel("Amount (NGN)").fill("2,000");
        await page.getByRole("button", { name: "Review the payout" }).click();
        await page.getByRole("heading", { name: "Review the payout" }).waitFor();
      };
      await review();
      await page.getByRole("link", { name: "set up two-factor sign-in" }).click();
      assert.match(
        await page.getByRole("alert").innerText(),
        /Moving money takes a code from an authenticator app/,
      );
      await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
      const secret = (await page.locator("#totp-key").innerText()).trim();
      offset += STEP_MS;
      await page.getByLabel("Code from the app").fill(totpCode(secret, now()));
      await page.getByLabel("Your password, to turn it on").fill(MEMBER_PASSWORD);
      await page.getByRole("button", { name: "Turn on" }).click();
      const codes = await page.getByRole("list", { name: "Recovery codes" }).innerText();
      const recovery = codes.split(/\s+/).filter(Boolean);
      assert.equal(recovery.length, 10);
      assert.match(
        await page.locator("#money-from").innerText(),
        /it moves money .* from \d{4}-\d\d-\d\d \d\d:\d\d WAT/,
      );

      // Inside the cool-off the code is right and nothing moves; an hour on, the payout is sent.
      await review();
      offset += STEP_MS;
      await page.getByLabel("Two-factor code").fill(totpCode(secret, now()));
      await page.getByRole("button", { name: /^Send NGN 2,000\.00 to / }).click();
      assert.match(
        await page.getByRole("alert").innerText(),
        /Your authenticator was set up recently: it moves money from/,
      );
      assert.equal((await h.services.collections.balance(forBusiness)).pending, 0, "nothing held");
      offset += HOUR_MS;
      await page.getByLabel("Two-factor code").fill(totpCode(secret, now()));
      await page.getByRole("button", { name: /^Send NGN 2,000\.00 to / }).click();
      await page.getByRole("heading", { name: `Payout to ${destination.accountName}` }).waitFor();

      // The password and a recovery code sign in, and turn nothing off.
      await page.getByRole("button", { name: "Sign out" }).click();
      await signInInBrowser(page, origin, {
        email,
        password: MEMBER_PASSWORD,
        code: () => recovery[0] ?? "",
      });
      await page.getByRole("heading", { name: "Ladi Payouts" }).waitFor();
      await page.goto(`${origin}/dashboard/security`);
      await page.getByLabel("Your password, to turn it off").fill(MEMBER_PASSWORD);
      await page
        .getByLabel("Code from your authenticator app")
        .last()
        .fill(recovery[1] ?? "");
      await page.getByRole("checkbox", { name: "Yes, turn two-factor sign-in off" }).check();
      await page.getByRole("button", { name: "Turn two-factor sign-in off" }).click();
      assert.match(
        await page.getByRole("alert").first().innerText(),
        /a recovery code signs you in, and nothing more/,
      );
      const member = await h.services.users.businessUserByEmail(email);
      assert.equal((await h.services.users.getUser(member.id)).totpEnabled, true, "still on");
      assert.deepEqual(problems, [], "no script error, no CSP violation");
      await context.close();
    });
  });
}
