// npm run screenshots: pictures of the dashboard's and the console's main pages for
// docs/dashboard.md, at desktop and phone width, in Debian's Chromium. It starts the service on a
// throwaway SQLite database, walks through it as a business and an operator would (signing up,
// submitting details, approving, a key, accounts, a payment, payouts, a webhook), and writes PNGs to
// docs/images/. Nothing leaves this machine.
//
// Two factors, as the service asks (issue 43): the operator sets up an authenticator at first
// sign-in, then signs in with its codes; the owner turns two-factor on before moving money, and types
// a fresh code at each money step. Each code's time step is good once, so the service runs on a
// clock of its own that moves 30 seconds on for every code (`code()`), instead of waiting for the
// real one. MONEY_COOL_OFF_HOURS is 0 in development, so a new authenticator moves money at once.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { permanentInput } from "../src/accounts/validation.js";
import { totpCode } from "../src/businesses/totp.js";
import { transactionQuery } from "../src/collections/validation.js";
import { buildServerApp } from "../src/compose/server.js";
import { openServices } from "../src/compose/services.js";
import { loadConfig } from "../src/config/load.js";
import { CLI } from "../src/core/actor.js";
import { check } from "../src/core/validation.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { launchBrowser } from "../test/helpers/browser.js";
import { lastMail, linkIn, mailsTo, pathOf } from "../test/helpers/mail-files.js";
import { signedUpOwner } from "../test/helpers/members.js";

const OUT = path.resolve("docs/images");
const PASSWORD = "correct horse battery staple 42";
const OPERATOR = { email: "ops@example.com", password: "lagos harbour ferry at dawn 7" };
const WIDTHS = { desktop: 1280, phone: 390 } as const;
const STEP_MS = 30_000;

// The service's clock: the real one, moved on a time step for every two-factor code typed. It
// starts ten minutes behind the real one (the script types fewer than 20 codes), so it never runs
// ahead of the pages that read the real clock (the Security page's "your authenticator is new" note
// compares with it, and would show with MONEY_COOL_OFF_HOURS at 0).
let offset = -20 * STEP_MS;
const now = () => Date.now() + offset;
/** A code from the authenticator with this key, of a time step no code was typed in before. */
const code = (secret: string): string => {
  offset += STEP_MS;
  return totpCode(secret, now());
};

const dir = mkdtempSync(path.join(os.tmpdir(), "vas-screenshots-"));
const config = loadConfig({
  NODE_ENV: "development",
  DATA_DIR: dir,
  DATABASE_URL: `sqlite:${path.join(dir, "vas.db")}`,
  LOG_LEVEL: "silent",
  RATE_LIMIT_PER_KEY_PER_MIN: "0",
  RATE_LIMIT_PER_IP_PER_MIN: "0",
  SIGN_IN_RATE_LIMIT_PER_MIN: "0",
  // The sandbox's payouts settle at once, so the pictures show outcomes.
  SANDBOX_PAYOUT_SETTLE_MS: "0",
  SANDBOX_PAYOUT_REVERSE_MS: "0",
});
const services = await openServices(config, { now });
const app = buildServerApp(services, { logger: { level: "silent" } });
await app.listen({ port: 0, host: "127.0.0.1" });
const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const browser = await launchBrowser();
mkdirSync(OUT, { recursive: true });

try {
  await services.users.createOperator(OPERATOR.email, OPERATOR.password);
  // A second business waiting in the queue, so the operator's list has more than one row.
  const waiting = await signedUpOwner(services, {
    businessName: "Ada Textiles",
    email: "owner@adatextiles.example",
    password: PASSWORD,
  });
  await services.profiles.submit(waiting.businessId as string, CLI, {
    registeredName: "Ada Textiles Limited",
    rcNumber: "RC7654321",
    address: "4 Broad Street, Lagos",
    contactName: "Ada Eze",
    contactEmail: "ada@adatextiles.example",
    contactPhone: "+2348031112222",
  });

  const context = await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } });
  const business = await context.newPage();

  await business.goto(`${origin}/dashboard/signup`);
  await capture(business, "sign-up");
  await business.getByLabel("Business name").fill("Kola Foods");
  await business.getByLabel("Your email").fill("owner@kolafoods.example");
  await business.getByLabel("Password").fill(PASSWORD);
  await business.getByRole("button", { name: "Create account" }).click();
  await business.getByText("Check your email.").waitFor();
  await capture(business, "sign-up-sent");
  const confirmation = await lastMail(
    { dir, mailer: services.mailer },
    "owner@kolafoods.example",
    "Confirm your email to create your account",
  );
  await business.goto(`${origin}${pathOf(linkIn(confirmation, "http"))}`);
  await capture(business, "confirm-email");
  await business.getByRole("button", { name: "Confirm and create my account" }).click();
  await business.getByLabel("Registered name").fill("Kola Foods Limited");
  await business.getByLabel("RC number").fill("RC1234567");
  await business.getByLabel("Registered address").fill("12 Marina Road, Lagos Island, Lagos");
  await business.getByLabel("Contact person").fill("Kola Adeyemi");
  await business.getByLabel("Contact email").fill("kola@kolafoods.example");
  await business.getByLabel("Contact phone").fill("+234 803 123 4567");
  await business.getByRole("button", { name: "Submit for verification" }).click();
  await capture(business, "verification");

  const operator = await context.browser()?.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } });
  const admin = await operator?.newPage();
  if (!admin) throw new Error("no second browser context");
  // The operator's first sign-in leads to setting up two-factor, and to nothing else until done.
  await admin.goto(`${origin}/admin/login`);
  await admin.getByLabel("Email").fill(OPERATOR.email);
  await admin.getByLabel("Password").fill(OPERATOR.password);
  await admin.getByRole("button", { name: "Sign in" }).click();
  await admin.waitForURL(/\/admin\/security\?setup=operator$/);
  await capture(admin, "admin-security-setup");
  const operatorKey = await turnOnTwoFactor(admin, OPERATOR.password);
  // Signing in again: the password, then the app's code.
  await admin.getByRole("button", { name: "Sign out" }).click();
  await admin.goto(`${origin}/admin/login`);
  await admin.getByLabel("Email").fill(OPERATOR.email);
  await admin.getByLabel("Password").fill(OPERATOR.password);
  await admin.getByRole("button", { name: "Sign in" }).click();
  await admin.waitForURL(/\/admin\/login\/code$/);
  await admin.getByLabel("Code", { exact: true }).fill(code(operatorKey));
  await admin.getByRole("button", { name: "Continue" }).click();
  await admin.goto(`${origin}/admin`);
  await capture(admin, "admin-queue");
  await admin.getByRole("link", { name: "Kola Foods" }).click();
  await capture(admin, "admin-business");
  await admin.getByRole("button", { name: "Approve" }).click();

  await business.goto(`${origin}/dashboard/keys`);
  await business.getByRole("button", { name: "Create a key pair" }).click();
  await capture(business, "key-created");
  // Revoking asks for the prefix and warns about the only active key (not sent here).
  await business.goto(`${origin}/dashboard/keys`);
  await business.getByRole("link", { name: /^Revoke key vak_/ }).click();
  await business.getByLabel(/Type the key's prefix/).fill("vak_");
  await capture(business, "key-revoke");

  const kola = { businessId: "", businessName: "Kola Foods" };
  kola.businessId = (await services.businesses.listBusinesses()).find((b) => b.name === "Kola Foods")
    ?.businessId as string;
  const customers = ["Chinedu Okafor", "Amina Bello", "Tunde Bakare", "Ngozi Eze"];
  const numbers: string[] = [];
  for (const [i, name] of customers.entries()) {
    const generated = await services.accounts.generatePermanent(
      kola,
      CLI,
      check(permanentInput, {
        name,
        email: `${name.split(" ")[0]?.toLowerCase()}@customer.example`,
        bvn: `2234567890${i}`,
      }),
    );
    numbers.push(generated.account.accountNumber);
  }
  // Paid from the sandbox's named accounts, so that a payment can be refunded to its payer.
  const payers = SANDBOX_PAYEES.filter((payee) => payee.accountName !== null);
  for (const [i, accountNumber] of numbers.entries()) {
    const payer = payers[i % payers.length];
    await services.collections.sandboxTransfer(kola, {
      accountNumber,
      amount: 1_500_000 + i * 250_050,
      payerName: customers[(i + 1) % customers.length],
      ...(payer
        ? {
            payerAccountNumber: payer.accountNumber,
            payerBankName: payer.bankName,
            payerBankCode: payer.bankCode,
          }
        : {}),
      narration: `Order ${1040 + i}`,
    });
  }
  await business.goto(`${origin}/dashboard/home`);
  await capture(business, "overview");
  await business.goto(`${origin}/dashboard/accounts`);
  await capture(business, "accounts");
  await business.goto(`${origin}/dashboard/accounts/${numbers[0]}`);
  await capture(business, "account");
  await business.goto(`${origin}/dashboard/transactions`);
  await capture(business, "transactions");
  await business.goto(`${origin}/dashboard/transactions?payerName=amina`);
  await capture(business, "transactions-search");
  // Issuing an account from the form: every field's problem at once, beside its field.
  await business.goto(`${origin}/dashboard/accounts/new`);
  await capture(business, "account-new");
  await business.getByLabel("Customer's email").fill("emeka@customer");
  await business.getByLabel("Its 11 digits").fill("1234");
  await business.getByRole("button", { name: "Issue the account" }).click();
  await capture(business, "account-new-errors");
  // A re-issued account lists its numbers; its page offers deactivation.
  await services.accounts.generatePermanent(
    kola,
    CLI,
    check(permanentInput, { name: "Amina Bello", email: "amina@customer.example", bvn: "22345678909" }),
  );
  await business.goto(`${origin}/dashboard/accounts/${numbers[1]}`);
  await capture(business, "account-numbers");
  await services.payoutSettings.setApiPayouts(kola.businessId, true);
  const [paid, dormant, returned] = ["successful", "failed", "reversed"].map((outcome) =>
    SANDBOX_PAYEES.find((payee) => payee.outcome === outcome),
  );
  for (const [payee, amount, narration] of [
    [paid, 750_000, "Supplier: cassava flour"],
    [dormant, 120_000, "Deposit refund"],
    [returned, 300_000, "Logistics June"],
    [paid, 95_000, "Market stall rent"],
  ] as const) {
    if (!payee) continue;
    await services.payouts.create(kola, {
      amount,
      bankCode: payee.bankCode,
      accountNumber: payee.accountNumber,
      narration,
    });
    if (narration !== "Market stall rent") {
      await services.payoutTracker.run();
      await services.bankPayoutNotices?.run();
    }
  }
  // Before any money moves from the dashboard: two-factor sign-in on, through the Security page,
  // and the recovery codes it comes with, shown once.
  await business.goto(`${origin}/dashboard/security`);
  await capture(business, "security");
  const kolaKey = await turnOnTwoFactor(business, PASSWORD);
  await capture(business, "security-recovery-codes");
  await business.goto(`${origin}/dashboard/payouts`);
  await capture(business, "payouts");
  // A payout from the form: the review names the account and shows the fee before it is sent.
  await business.getByLabel("Bank").selectOption({ label: paid?.bankName ?? "" });
  await business
    .getByLabel("Account number")
    .first()
    .fill(paid?.accountNumber ?? "");
  await business.getByLabel("Amount (NGN)").fill("12,000");
  await business.getByLabel("Narration").fill("Equipment lease");
  await business.getByRole("button", { name: "Review the payout" }).click();
  await business.getByLabel("Two-factor code").fill(code(kolaKey));
  await capture(business, "payout-review");
  await business.getByRole("button", { name: /^Send NGN/ }).click();
  await capture(business, "payout");
  await business.goto(`${origin}/dashboard/transactions`);
  await business
    .getByRole("link", { name: /^Payment of / })
    .first()
    .click();
  await business.getByLabel("Amount (NGN)").fill("2,500");
  await business.getByLabel("Reason").fill("Damaged on delivery");
  await business.getByLabel("Two-factor code").fill(code(kolaKey));
  await business.getByRole("button", { name: "Refund" }).click();
  await services.payoutTracker.run();
  await services.bankPayoutNotices?.run();
  await business.goBack();
  await business.reload();
  await capture(business, "transaction");
  // The settlement account: named by the bank, confirmed, then its cool-off.
  await business.goto(`${origin}/dashboard/settlements`);
  await business.getByLabel("Bank").selectOption({ label: paid?.bankName ?? "" });
  await business.getByLabel("Account number").fill(paid?.accountNumber ?? "");
  await business.getByRole("button", { name: "Set the account" }).click();
  await business.getByLabel("Two-factor code").fill(code(kolaKey));
  // The bank's name for it is not the business's: flagged, and the tick asked for.
  await business.getByRole("checkbox", { name: /account is my business's/ }).check();
  await capture(business, "settlement-account-review");
  await business.getByRole("button", { name: "Use this account for settlements" }).click();
  await capture(business, "settlements");
  // Find a payment: a session id neither the service nor the bank has.
  await business.goto(`${origin}/dashboard/transactions`);
  await business.getByLabel("Session id").fill("100004251125093015123456789012");
  await business.getByRole("button", { name: "Find" }).click();
  await capture(business, "transactions-find");
  // Reconciliation: a payment described a second time with another amount is kept as a
  // conflict, and the day's report shows it beside the recorded one, under the console's banner.
  const [first] = (await services.collections.listTransactions(kola, check(transactionQuery, { limit: "1" })))
    .items;
  if (first) {
    await services.collections
      .receive({
        sessionId: first.sessionId,
        accountNumber: first.accountNumber,
        amount: first.amount + 100_000,
        currency: "NGN",
        payer: first.payer,
        narration: first.narration,
        paidAt: first.paidAt,
      })
      .catch(() => undefined);
  }
  await admin.goto(`${origin}/admin/reconciliation`);
  await admin.getByRole("button", { name: "Reconcile" }).click();
  await capture(admin, "admin-reconciliation-report");
  await admin.goto(`${origin}/admin/reconciliation`);
  await capture(admin, "admin-reconciliation");
  await admin.goto(`${origin}/admin/payouts`);
  await capture(admin, "admin-payouts");
  await admin.goto(`${origin}/admin/businesses/${kola.businessId}`);
  await capture(admin, "admin-business-payouts");
  await business.goto(`${origin}/dashboard/webhooks`);
  await business.getByLabel("URL").fill("https://hooks.kolafoods.example/vas");
  await business.getByRole("button", { name: "Add endpoint" }).click();
  await business.goto(`${origin}/dashboard/webhooks`);
  await capture(business, "webhooks");
  await business
    .getByRole("link", { name: /^Change https:/ })
    .first()
    .click();
  await capture(business, "webhook-edit");
  await admin.goto(`${origin}/admin/businesses?q=kola`);
  await capture(admin, "admin-businesses-search");
  await admin.goto(`${origin}/admin/accounts?q=chinedu%40customer.example`);
  await capture(admin, "admin-accounts");
  await admin.goto(`${origin}/admin/transactions`);
  await capture(admin, "admin-transactions");
  await services.operators.invite(
    { type: "operator", id: (await services.operators.list())[0]?.id as string },
    "reviewer@ops.example",
    "reviewer",
  );
  await admin.goto(`${origin}/admin/operators`);
  await capture(admin, "admin-operators");
  await admin.goto(`${origin}/admin/businesses/${kola.businessId}`);
  await admin.reload();
  await capture(admin, "admin-business-people");
  // The team: an invitation out, then the invitee's page from the mailed link.
  await business.goto(`${origin}/dashboard/team`);
  await business.getByLabel("Their email").fill("tunde@kolafoods.example");
  await business.getByLabel("Role", { exact: true }).selectOption("finance");
  await business.getByRole("button", { name: "Send the invitation" }).click();
  await capture(business, "team");
  const invitation = await lastMail({ dir, mailer: services.mailer }, "tunde@kolafoods.example", /^Join /);
  const invitee = await (
    await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } })
  ).newPage();
  await invitee.goto(`${origin}${pathOf(linkIn(invitation, "http"))}`);
  await capture(invitee, "join");
  // The finance member joins without an authenticator: the payout review says that moving money
  // takes one, where the code would be, and sending anyway leads to setting one up.
  await invitee.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await invitee.getByLabel("The same again").fill(PASSWORD);
  await invitee.getByRole("button", { name: /^Join / }).click();
  await invitee.goto(`${origin}/dashboard/payouts`);
  await invitee.getByLabel("Bank").selectOption({ label: paid?.bankName ?? "" });
  await invitee
    .getByLabel("Account number")
    .first()
    .fill(paid?.accountNumber ?? "");
  await invitee.getByLabel("Amount (NGN)").fill("8,500");
  await invitee.getByLabel("Narration").fill("Packaging");
  await invitee.getByRole("button", { name: "Review the payout" }).click();
  await invitee.getByRole("link", { name: "set up two-factor sign-in" }).waitFor();
  await capture(invitee, "payout-review-no-code");
  // No Send without an authenticator: the notice's link leads to set one up.
  await invitee.getByRole("link", { name: "set up two-factor sign-in" }).click();
  await invitee.waitForURL(/\/dashboard\/security\?setup=money$/);
  await capture(invitee, "security-setup-money");
  // The owner requires two-factor sign-in of every member.
  await business.goto(`${origin}/dashboard/team`);
  await business.getByRole("button", { name: "Require two-factor sign-in of every member" }).click();
  await business.getByRole("button", { name: "Stop requiring two-factor sign-in" }).waitFor();
  await capture(business, "team-two-factor");
  // A business not verified yet: "Issue an account" says so, with no form.
  const unverified = await (
    await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } })
  ).newPage();
  await unverified.goto(`${origin}/dashboard/login`);
  await unverified.getByLabel("Email").fill("owner@adatextiles.example");
  await unverified.getByLabel("Password").fill(PASSWORD);
  await unverified.getByRole("button", { name: "Sign in" }).click();
  await unverified.goto(`${origin}/dashboard/accounts/new`);
  await capture(unverified, "account-new-unverified");
  // Forgot password, from a browser that is not signed in: the link comes by mail (an .eml file
  // here, without SMTP_URL).
  const stranger = await (
    await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } })
  ).newPage();
  await stranger.goto(`${origin}/dashboard/login`);
  await stranger.getByRole("link", { name: "Forgot your password?" }).click();
  await stranger.getByLabel("Email").fill("owner@kolafoods.example");
  await stranger.getByRole("button", { name: "Mail me a link" }).click();
  await capture(stranger, "forgot");
  await services.mailer.idle();
  const reset = (await mailsTo(dir, "owner@kolafoods.example")).find(
    (mail) => mail.subject === "Reset your password",
  );
  await stranger.goto(
    linkIn(reset, `${config.mail.publicUrl}/dashboard/reset?token=`).replace(config.mail.publicUrl, origin),
  );
  await capture(stranger, "reset-password");
  process.stdout.write(`Screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await app.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Sets up two-factor sign-in on the Security page the browser is on (or is led to), as a person
 * would: the key the page shows typed into the "app" (totpCode), its code, the password. The
 * recovery codes are on the page after it; the key is returned, for the codes asked later.
 */
async function turnOnTwoFactor(page: Page, password: string): Promise<string> {
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  const key = (await page.locator("#totp-key").textContent())?.trim() ?? "";
  if (!key) throw new Error("the Security page shows no two-factor key");
  await page.getByLabel("Code from the app").fill(code(key));
  await page.getByLabel("Your password, to turn it on").fill(password);
  await page.getByRole("button", { name: "Turn on" }).click();
  await page.getByText("Your recovery codes.").waitFor();
  return key;
}

/** The page as it is now, at desktop width and at phone width (the same page, resized). */
async function capture(page: Page, name: string): Promise<void> {
  for (const [label, width] of Object.entries(WIDTHS)) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(OUT, `dashboard-${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: WIDTHS.desktop, height: 900 });
}
