import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { permanentInput } from "../src/accounts/validation.js";
import { sign } from "../src/auth/signature.js";
import { totpCode } from "../src/businesses/totp.js";
import { check } from "../src/core/validation.js";
import {
  launchBrowser,
  listenOnLoopback,
  openRecordingPage,
  skipWithoutBrowser as skip,
} from "./helpers/browser.js";
import { signUpInBrowser } from "./helpers/browser-sign-up.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { linkIn, mailsTo } from "./helpers/mail-files.js";
import { enrolAuthenticator } from "./helpers/two-factor.js";

// The business dashboard and the operator console in a real browser (issue 13), on each database:
// found by role and label, as a screen reader finds them.

const PASSWORD = "correct horse battery staple 42";
const OPERATOR_PASSWORD = "lagos harbour ferry at dawn 7";

/** A cell's computed display, run in the page (the tests are compiled without the DOM's types). */
const DISPLAY = (cell: unknown) =>
  (globalThis as unknown as { getComputedStyle(element: unknown): { display: string } }).getComputedStyle(
    cell,
  ).display;

for (const dialect of DIALECTS) {
  describe(`the dashboard in a browser on ${dialect}`, { skip }, () => {
    let h: Harness;
    let browser: Browser;
    let origin: string;
    let operatorEmail: string;
    // Every operator signs in with two factors (issue 43): each sign-in's code is a step of its
    // own, so the service's clock moves on by one for each.
    let operatorSecret: string;
    let offset = 0;
    const now = () => Date.now() + offset;
    const operatorCode = () => {
      offset += 30_000;
      return totpCode(operatorSecret, now());
    };

    before(async () => {
      h = await createHarness({ dialect, now, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      origin = await listenOnLoopback(h.app);
      browser = await launchBrowser();
      operatorEmail = `ops.${dialect}@example.com`;
      const operator = await h.services.users.createOperator(operatorEmail, OPERATOR_PASSWORD);
      operatorSecret = await enrolAuthenticator(h.services.secondFactor, operator.id, OPERATOR_PASSWORD, now);
    });

    after(async () => {
      await browser?.close();
      await h?.close();
    });

    /** A fresh browser profile (its own cookies) with a page that records what it loads. */
    const open = () => openRecordingPage(browser);

    async function signUp(page: Page, businessName: string, email: string): Promise<void> {
      await signUpInBrowser(
        page,
        origin,
        { dir: h.dir, mailer: h.services.mailer },
        {
          businessName,
          email,
          password: PASSWORD,
        },
      );
    }

    async function submitDetails(page: Page): Promise<void> {
      await page.getByLabel("Registered name").fill("Kola Foods Limited");
      await page.getByLabel("RC number").fill("RC 1234567");
      await page.getByLabel("Registered address").fill("12 Marina Road, Lagos Island, Lagos");
      await page.getByLabel("Contact person").fill("Kola Adeyemi");
      await page.getByLabel("Contact email").fill("kola@kolafoods.example");
      await page.getByLabel("Contact phone").fill("+234 803 123 4567");
      await page.getByRole("button", { name: "Submit for verification" }).click();
      await page.getByText("In review").first().waitFor();
    }

    async function operatorSignIn(page: Page): Promise<void> {
      await page.goto(`${origin}/admin/login`);
      await page.getByLabel("Email").fill(operatorEmail);
      await page.getByLabel("Password").fill(OPERATOR_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByLabel("Code").fill(operatorCode());
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("heading", { name: "Verification queue" }).waitFor();
    }

    test("sign up, get verified, create a key that signs an API call, revoke it; both sides see the history", async () => {
      const business = await open();
      const email = `owner.${dialect}@kolafoods.example`;
      await signUp(business.page, "Kola Foods", email);
      assert.match(
        await business.page
          .getByText(/Status:/)
          .first()
          .innerText(),
        /Not submitted/,
      );
      await submitDetails(business.page);

      const operator = await open();
      await operatorSignIn(operator.page);
      await operator.page.getByRole("link", { name: "Kola Foods" }).click();
      await operator.page.getByRole("heading", { name: "Kola Foods", level: 1 }).waitFor();
      assert.match(
        await operator.page
          .getByRole("region", { name: "Submitted details" })
          .locator("dl.details")
          .innerText(),
        /RC1234567/,
      );
      await operator.page.getByRole("button", { name: "Approve" }).click();
      await operator.page.getByText("Verified").first().waitFor();
      // The console names the operator who decided; the business's page does not.
      const consoleHistory = await operator.page.getByRole("region", { name: "History" }).innerText();
      assert.match(
        consoleHistory,
        new RegExp(`In review\\s+Verified\\s+${operatorEmail.replaceAll(".", "\\.")} \\(operator\\)`),
      );
      assert.match(
        consoleHistory,
        new RegExp(`Not submitted\\s+In review\\s+${email.replaceAll(".", "\\.")}`),
      );

      await business.page.goto(`${origin}/dashboard/home`);
      assert.match(await business.page.getByRole("main").innerText(), /Your business is verified/);
      await business.page.getByRole("link", { name: "Verification" }).click();
      const history = await business.page.getByRole("table").innerText();
      assert.match(history, /In review\s+Verified\s+An operator/);
      assert.match(history, new RegExp(`Not submitted\\s+In review\\s+${email.replaceAll(".", "\\.")}`));

      // A key pair from the dashboard signs a real API call.
      await business.page.getByRole("link", { name: "API keys" }).click();
      await business.page.getByRole("button", { name: "Create a key pair" }).click();
      await business.page.getByText("this is the only time it is shown").waitFor();
      const apiKey = (await business.page.locator("#new-api-key").innerText()).trim();
      const secretKey = (await business.page.locator("#new-secret-key").innerText()).trim();
      // The form ended in a redirect: a refresh posts nothing again (still one key), and the
      // secret, shown once, is gone.
      await business.page.reload();
      assert.match(await business.page.getByRole("status").innerText(), /Its secret was shown once/);
      assert.equal(await business.page.locator("#new-secret-key").count(), 0);
      const { businessId } = await h.services.users.businessUserByEmail(email);
      assert.equal((await h.services.businesses.listKeys(businessId as string)).length, 1);
      const body = JSON.stringify({ name: "Ada Obi", email: "ada@customer.example", bvn: "22345678901" });
      const timestamp = String(Date.now());
      const generated = await fetch(`${origin}/api/v1/external/account/generate`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": apiKey,
          "x-timestamp": timestamp,
          "x-signature": sign(secretKey, body, timestamp),
        },
        body,
      });
      const answer = await generated.text();
      assert.equal(generated.status, 201, answer);
      const accountNumber = (JSON.parse(answer) as { data: { accountNumber: string } }).data.accountNumber;

      // The account shows in the dashboard, found by email; a sandbox transfer reaches its
      // payments, the transactions and the balance.
      await business.page.getByRole("link", { name: "Accounts" }).click();
      await business.page.getByLabel("Find by account number or customer email").fill("ada@customer.example");
      await business.page.getByRole("button", { name: "Search" }).click();
      await business.page.getByRole("link", { name: accountNumber }).click();
      await business.page.getByRole("heading", { name: `Account ${accountNumber}` }).waitFor();
      await business.page.getByLabel("Amount (NGN)").fill("1,500.50");
      await business.page.getByLabel("Payer's name").fill("Chinedu Okafor");
      await business.page.getByRole("button", { name: "Send the transfer" }).click();
      await business.page.getByRole("cell", { name: "NGN 1,500.50" }).first().waitFor();
      await business.page.getByRole("link", { name: "Transactions" }).click();
      assert.match(await business.page.getByRole("table").innerText(), /Chinedu Okafor[\s\S]*NGN 1,500\.50/);
      assert.match(await business.page.locator("dl.figures").innerText(), /Available\s+NGN\s1,500\.50/);
      await business.page.getByLabel("Account number").fill("0000000000");
      await business.page.getByRole("button", { name: "Show" }).click();
      assert.match(await business.page.getByRole("main").innerText(), /No transaction matches/);
      // The key's last use is written beside the request, not in it: look until it shows.
      let keyRow = "";
      for (let attempt = 0; attempt < 50 && !/\d{2}:\d{2}\s*$/.test(keyRow.split("\t")[3] ?? ""); attempt++) {
        await business.page.goto(`${origin}/dashboard/keys`);
        keyRow = await business.page.getByRole("row").nth(1).innerText();
      }
      assert.match(keyRow, /Active/);
      assert.doesNotMatch(keyRow, /Never/, "the key's last use is shown");
      assert.doesNotMatch(
        await business.page.content(),
        new RegExp(secretKey),
        "the secret is never shown again",
      );
      // Revoking asks for the key's prefix, and warns that it is the only active key.
      await business.page.getByRole("link", { name: /^Revoke key vak_/ }).click();
      assert.match(await business.page.getByRole("alert").innerText(), /This is your only active key/);
      await business.page.getByLabel(/Type the key's prefix/).fill("vak_wrong");
      await business.page.getByRole("button", { name: "Revoke this key" }).click();
      assert.match(
        await business.page.locator("#form-error").innerText(),
        /That is not this key's prefix: type vak_/,
      );
      const prefix = (await h.services.businesses.listKeys(businessId as string))[0]?.prefix ?? "";
      await business.page.getByLabel(/Type the key's prefix/).fill(prefix);
      await business.page.getByRole("button", { name: "Revoke this key" }).click();
      assert.match(await business.page.getByRole("status").innerText(), /The key is revoked/);
      assert.match(await business.page.getByRole("row").nth(1).innerText(), /Revoked/);
      const refused = await fetch(`${origin}/api/v1/external/account/list`, {
        headers: {
          "x-api-key": apiKey,
          "x-timestamp": timestamp,
          "x-signature": sign(secretKey, "{}", timestamp),
        },
      });
      assert.equal(refused.status, 401, "a revoked key opens nothing");

      const everything = [...business.requested, ...operator.requested];
      assert.deepEqual(
        everything.filter((url) => !url.startsWith(`${origin}/`)),
        [],
        "nothing loads from anywhere but this server",
      );
      assert.deepEqual([...business.problems, ...operator.problems], [], "no script error, no CSP violation");
      await business.context.close();
      await operator.context.close();
    });

    test("at phone width a wide table becomes cards labelled by column, still a table to assistive technology", async () => {
      const { context, page, problems } = await open();
      await page.setViewportSize({ width: 390, height: 844 });
      await signUp(page, "Narrow Foods", `narrow.${dialect}@example.com`);
      await submitDetails(page);
      const table = page.getByRole("table", { name: "Verification history, newest first" });
      const cells = table.getByRole("cell");
      assert.deepEqual(
        await cells.evaluateAll((tds) => tds.map((td) => td.getAttribute("data-label"))),
        ["When", "From", "To", "By", null],
        "each cell named by its column; the empty Reason gets no name above nothing",
      );
      assert.equal(
        await table.getByRole("columnheader", { name: "By" }).count(),
        1,
        "headers are still headers",
      );
      assert.equal(await cells.nth(1).evaluate(DISPLAY), "block");
      assert.match(await cells.nth(1).innerText(), /Not submitted/);
      const sideways = await page.evaluate<number>(
        "document.documentElement.scrollWidth - window.innerWidth",
      );
      assert.ok(sideways <= 0, `nothing scrolls sideways (${sideways} px)`);
      // At desktop width it is a table again.
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.equal(await cells.nth(1).evaluate(DISPLAY), "table-cell");
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("a rejection shows its reason; the business corrects and resubmits", async () => {
      const business = await open();
      await signUp(business.page, "Ada Textiles", `owner.${dialect}@adatextiles.example`);
      await submitDetails(business.page);
      const operator = await open();
      await operatorSignIn(operator.page);
      await operator.page.getByRole("link", { name: "Ada Textiles" }).click();
      // A reason is required: blank (only spaces, which pass the browser's check) comes back
      // with the domain's refusal.
      await operator.page.getByLabel("Reason").fill("   ");
      await operator.page.getByRole("button", { name: "Reject" }).click();
      await operator.page.getByRole("alert").waitFor();
      assert.match(await operator.page.getByRole("alert").innerText(), /a reason is required to reject/);
      await operator.page.getByLabel("Reason").fill("The RC number does not match the registered name");
      await operator.page.getByRole("button", { name: "Reject" }).click();
      await operator.page.getByText("Rejected").first().waitFor();

      await business.page.goto(`${origin}/dashboard/verification`);
      assert.match(await business.page.getByRole("status").innerText(), /RC number does not match/);
      await business.page.getByLabel("RC number").fill("RC7654321");
      await business.page.getByRole("button", { name: "Submit for verification" }).click();
      await business.page.getByText("In review").first().waitFor();

      // Approved, then suspended: the business sees the reason; its status is rejected again.
      await operator.page.reload();
      await operator.page.getByRole("button", { name: "Approve" }).click();
      await operator.page.getByLabel("Reason").fill("Chargebacks under investigation");
      await operator.page.getByRole("button", { name: "Suspend" }).click();
      await operator.page.getByText("Rejected").first().waitFor();
      await business.page.goto(`${origin}/dashboard/verification`);
      assert.match(await business.page.getByRole("status").innerText(), /Chargebacks under investigation/);
      await business.context.close();
      await operator.context.close();
    });

    test("two-factor sign-in set up from the pages, then a code after the password; a changed password", async () => {
      const { context, page } = await open();
      const email = `owner.${dialect}@twofactor.example`;
      await signUp(page, "Two Factor Ltd", email);
      await page.getByRole("link", { name: "Security" }).click();
      await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
      assert.ok(await page.getByRole("img", { name: "QR code of the two-factor key" }).isVisible());
      const secret = (await page.locator("#totp-key").innerText()).trim();
      await page.getByLabel("Code from the app").fill("000000");
      await page.getByLabel("Your password, to turn it on").fill(PASSWORD);
      await page.getByRole("button", { name: "Turn on" }).click();
      assert.match(await page.getByRole("alert").innerText(), /That code is not right/);
      await page.getByLabel("Code from the app").fill(totpCode(secret, now()));
      await page.getByLabel("Your password, to turn it on").fill(PASSWORD);
      await page.getByRole("button", { name: "Turn on" }).click();
      assert.match(await page.getByRole("status").innerText(), /Two-factor sign-in is on/);
      const codes = await page
        .getByRole("list", { name: "Recovery codes" })
        .getByRole("listitem")
        .allInnerTexts();
      assert.equal(codes.length, 10, "ten recovery codes, shown once");

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Enter your code" }).waitFor();
      // Between the password and the code, no other page opens.
      await page.goto(`${origin}/dashboard/home`);
      assert.equal(new URL(page.url()).pathname, "/dashboard/login/code");
      // The code used to turn it on was for this step already: wait for the next one if need be.
      const step = Math.floor(now() / 30_000);
      await page.getByLabel("Code").fill(totpCode(secret, (step + 1) * 30_000));
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("heading", { name: "Two Factor Ltd" }).waitFor();

      await page.getByRole("link", { name: "Security" }).click();
      await page.getByLabel("Current password").fill(PASSWORD);
      await page.getByLabel("New password", { exact: true }).fill("another long passphrase 77");
      await page.getByLabel("New password again").fill("another long passphrase 77");
      await page.getByRole("button", { name: "Change password" }).click();
      assert.match(await page.getByRole("status").innerText(), /Your password is changed/);

      // The phone is lost: a recovery code signs in, once.
      const signInWithCode = async (code: string) => {
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.getByLabel("Email").fill(email);
        await page.getByLabel("Password").fill("another long passphrase 77");
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByLabel("Code").fill(code);
        await page.getByRole("button", { name: "Continue" }).click();
      };
      await signInWithCode(codes[0] as string);
      await page.getByRole("heading", { name: "Two Factor Ltd" }).waitFor();
      await signInWithCode(codes[0] as string);
      assert.match(await page.getByRole("alert").innerText(), /That code is not right/);
      await context.close();
    });

    test("a forgotten password, reset from the mailed link", async () => {
      const { context, page } = await open();
      const email = `owner.${dialect}@forgot.example`;
      await signUp(page, "Forgot Ltd", email);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("link", { name: "Forgot your password?" }).click();
      await page.getByLabel("Email").fill(email);
      await page.getByRole("button", { name: "Mail me a link" }).click();
      assert.match(await page.getByRole("status").innerText(), /If an account has that address/);
      // The link is made after the answer (issue 43).
      await h.services.passwordResets.idle();
      await h.services.mailer.idle();
      const [mail] = (await mailsTo(h.dir, email)).filter((m) => m.subject === "Reset your password");
      const link = new URL(linkIn(mail, "http"));
      await page.goto(`${origin}${link.pathname}${link.search}`);
      await page.getByLabel("New password").fill("a brand new long passphrase 31");
      await page.getByLabel("The same again").fill("a brand new long passphrase 31");
      await page.getByRole("button", { name: "Set the password" }).click();
      assert.match(await page.getByRole("status").innerText(), /Your password is set/);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill("a brand new long passphrase 31");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Forgot Ltd" }).waitFor();
      // Used once: the link now says so.
      await page.goto(`${origin}${link.pathname}${link.search}`);
      assert.match(await page.getByRole("alert").innerText(), /expired or was already used/);
      await context.close();
    });

    test("an operator signs in with the keyboard alone", async () => {
      const { context, page } = await open();
      await page.goto(`${origin}/admin/login`);
      // The first Tab lands on the skip link, then the brand; the form follows.
      await page.keyboard.press("Tab");
      assert.equal(await page.locator(":focus").textContent(), "Skip to main content");
      await page.getByLabel("Email").focus();
      await page.keyboard.type(operatorEmail);
      await page.keyboard.press("Tab");
      assert.equal(await page.locator(":focus").getAttribute("id"), "password");
      await page.keyboard.type(OPERATOR_PASSWORD);
      await page.keyboard.press("Enter");
      // The code's page puts the focus in its one field.
      await page.getByLabel("Code").waitFor();
      assert.equal(await page.locator(":focus").getAttribute("id"), "code");
      await page.keyboard.type(operatorCode());
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Verification queue" }).waitFor();
      await context.close();
    });

    test("a form posted without its CSRF token, or with another session's, is refused with 403", async () => {
      const { context, page } = await open();
      await signUp(page, "Forge Check", `owner.${dialect}@forge.example`);
      // A token that is valid, but for another session (another browser signed in elsewhere).
      const other = await open();
      await signUp(other.page, "Token Donor", `owner.${dialect}@donor.example`);
      const othersToken = await other.page.locator('input[name="_csrf"]').first().getAttribute("value");
      await other.context.close();
      // In the page, as a script of another tab of the same browser would post (a string: the
      // test's own code is compiled with helpers the page does not have).
      const statuses = await page.evaluate(`(async () => {
        const post = async (token) =>
          (await fetch("/dashboard/verification", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ _csrf: token, registeredName: "X" }).toString(),
          })).status;
        return [await post(""), await post("forged-token"), await post(${JSON.stringify(othersToken)})];
      })()`);
      assert.deepEqual(statuses, [403, 403, 403]);
      await page.goto(`${origin}/dashboard/verification`);
      assert.match(await page.getByText(/Status:/).innerText(), /Not submitted/, "nothing was submitted");
      await context.close();
    });

    test("after 5 wrong passwords sign-in is paused, even with the right one", async () => {
      const { context, page } = await open();
      const email = `owner.${dialect}@locked.example`;
      await signUp(page, "Locked Out", email);
      await context.clearCookies();
      for (let attempt = 1; attempt <= 5; attempt++) {
        await page.goto(`${origin}/dashboard/login`);
        await page.getByLabel("Email").fill(email);
        await page.getByLabel("Password").fill(`wrong password ${attempt}`);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("alert").waitFor();
      }
      await page.getByLabel("Password").fill(PASSWORD);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/dashboard/login") && r.request().method() === "POST"),
        page.getByRole("button", { name: "Sign in" }).click(),
      ]);
      assert.equal(response.status(), 429);
      assert.match(await page.getByRole("alert").innerText(), /Too many failed sign-ins/);
      const audit = await h.storage.db
        .selectFrom("audit_log")
        .select("action")
        .where("action", "=", "sign_in.failed")
        .execute();
      assert.ok(audit.length >= 5, "every failure is in the audit log");
      await context.close();
    });

    test("a business user reaches neither the console nor another business's pages", async () => {
      const { context, page } = await open();
      await signUp(page, "Nosy Ltd", `owner.${dialect}@nosy.example`);
      await page.goto(`${origin}/admin/businesses`);
      assert.equal(new URL(page.url()).pathname, "/admin/login", "a business session is no operator's");
      const other = await h.services.businesses.createBusiness("Private Ltd", "completed");
      const response = await page.goto(`${origin}/admin/businesses/${other.business.id}`);
      assert.equal(new URL(page.url()).pathname, "/admin/login");
      assert.equal(response?.status(), 200);
      assert.doesNotMatch(await page.content(), /Private Ltd/);

      // Another business's account and key are not found, as if they did not exist.
      const theirs = { businessId: other.business.id, businessName: other.business.name };
      const account = await h.services.accounts.generatePermanent(
        theirs,
        { type: "cli", id: null },
        check(permanentInput, {
          name: "Their Customer",
          email: "their.customer@example.com",
          bvn: "22345678901",
        }),
      );
      const accountPage = await page.goto(`${origin}/dashboard/accounts/${account.account.accountNumber}`);
      assert.equal(accountPage?.status(), 404);
      assert.doesNotMatch(await page.content(), /Their Customer/);
      await page.goto(`${origin}/dashboard/accounts?q=their.customer@example.com`);
      assert.match(await page.getByRole("main").innerText(), /No account matches/);
      await page.goto(`${origin}/dashboard/keys`);
      const token = await page.locator('input[name="_csrf"]').first().getAttribute("value");
      const revoke = await page.evaluate(`(async () => (await fetch("/dashboard/keys/${other.keyId}/revoke", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "_csrf=" + encodeURIComponent(${JSON.stringify(token)}),
      })).status)()`);
      assert.equal(revoke, 404);
      const keys = await h.services.businesses.listKeys(other.business.id);
      assert.equal(keys[0]?.status, "active", "their key is untouched");
      await context.close();
    });
  });
}
