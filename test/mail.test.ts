import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type ParsedMail, simpleParser } from "mailparser";
import { CLI } from "../src/core/actor.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { signedUpOwner } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";
import { smtpServer } from "./helpers/smtp.js";

// Issue 28, item 1: outgoing mail, for real. A real SMTP server on loopback (smtp-server) takes
// what the service sends; each message is read back with mailparser: plain text and HTML, links
// that start with PUBLIC_URL, nothing a mail client would fetch. The outbox keeps nothing
// readable at rest and tries again when the server is away.

const PASSWORD = "correct horse battery staple 42";
const PUBLIC_URL = "https://vas.example.test";

const startSmtp = () => smtpServer();

for (const dialect of DIALECTS) {
  describe(`mail over SMTP on ${dialect}`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let h: Harness;

    before(async () => {
      smtp = await startSmtp();
      h = await createHarness({
        dialect,
        env: {
          SMTP_URL: smtp.url,
          PUBLIC_URL: PUBLIC_URL,
          MAIL_FROM: "Virtual Account Service <no-reply@vas.example.test>",
          SIGN_IN_RATE_LIMIT_PER_MIN: "0",
          SANDBOX_PAYOUT_SETTLE_MS: "0",
          SANDBOX_PAYOUT_REVERSE_MS: "0",
        },
      });
    });
    after(async () => {
      await h?.close();
      await smtp?.close();
    });

    /** The next message to `to` whose subject matches, once the mailer has sent it. */
    async function mailTo(to: string, subject: RegExp): Promise<ParsedMail> {
      for (let i = 0; i < 200; i++) {
        await h.services.mailer.idle();
        const found = smtp.received.find(
          (mail) => mail.to && JSON.stringify(mail.to).includes(to) && subject.test(mail.subject ?? ""),
        );
        if (found) {
          smtp.received.splice(smtp.received.indexOf(found), 1);
          return found;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(
        `no mail to ${to} matching ${subject}: ${smtp.received.map((m) => m.subject).join(", ")}`,
      );
    }

    /** Every mail is text and HTML, from MAIL_FROM, its links on PUBLIC_URL, nothing fetched. */
    function wellFormed(mail: ParsedMail, link: string) {
      assert.match(mail.from?.text ?? "", /no-reply@vas\.example\.test/);
      assert.ok(mail.text && mail.text.length > 0, "a plain-text part");
      assert.ok(typeof mail.html === "string" && mail.html.length > 0, "an HTML part");
      assert.ok(mail.text.includes(`${PUBLIC_URL}${link}`), `the text links to ${link}`);
      assert.ok(mail.html.includes(`href="${PUBLIC_URL}${link}"`), `the HTML links to ${link}`);
      assert.doesNotMatch(mail.html, /<img|<script|src=|url\(/i, "nothing a mail client fetches");
      assert.deepEqual(mail.attachments, []);
    }

    let serial = 0;
    async function signedUp() {
      serial++;
      const email = `owner${serial}.${dialect}@mail.example`;
      const name = `Mail & Co ${serial} Ltd`;
      const user = await signedUpOwner(h.services, { businessName: name, email, password: PASSWORD });
      return { email, name, user, businessId: user.businessId as string };
    }

    test("verification rejected with the reviewer's reason, then approved: each mailed to the business's people", async () => {
      const { email, name, businessId } = await signedUp();
      const submit = (rcNumber: string) =>
        h.services.profiles.submit(businessId, CLI, {
          registeredName: `${name} Limited`,
          rcNumber,
          address: "1 Marina, Lagos",
          contactName: "Ada Obi",
          contactEmail: email,
          contactPhone: "+2348031234567",
        });
      await submit("RC1234567");
      const reason = "The RC number <RC1234567> is not on the CAC register";
      await h.services.businesses.setVerificationStatus(businessId, "rejected", CLI, reason);
      const rejected = await mailTo(email, /your details need a change/);
      wellFormed(rejected, "/dashboard/verification");
      assert.ok(rejected.text?.includes(reason), "the reason, as the reviewer wrote it");
      assert.ok(String(rejected.html).includes("The RC number &lt;RC1234567&gt;"), "escaped in the HTML");
      assert.ok(rejected.subject?.startsWith(name));

      await submit("RC7654321");
      await h.services.businesses.setVerificationStatus(businessId, "completed", CLI);
      wellFormed(await mailTo(email, /is verified/), "/dashboard/home");
    });

    test("a sign-in from a new browser is mailed once; the same browser again is not", async () => {
      const { email, businessId } = await signedUp();
      await verifyBusiness(h.services, businessId);
      await mailTo(email, /is verified/);
      const browser = pageClient(h.app);
      const signIn = async () => {
        const login = await browser.get("/dashboard/login");
        const done = await browser.post("/dashboard/login", {
          _csrf: login.token ?? "",
          email,
          password: PASSWORD,
        });
        assert.equal(done.statusCode, 303);
      };
      await signIn();
      const mail = await mailTo(email, /A new sign-in to your account/);
      wellFormed(mail, "/dashboard/security");
      assert.match(mail.text ?? "", /From: 127\.0\.0\.1/);
      assert.match(mail.text ?? "", /When: \d{4}-\d{2}-\d{2} \d{2}:\d{2} WAT/);
      const home = await browser.get("/dashboard/home");
      assert.equal((await browser.post("/dashboard/logout", { _csrf: home.token ?? "" })).statusCode, 303);
      await signIn();
      await h.services.mailer.idle();
      assert.equal(
        smtp.received.filter((m) => /new sign-in/.test(m.subject ?? "")).length,
        0,
        "a known browser is not mailed about",
      );
    });

    test("a failed payout and a changed settlement account are mailed", async () => {
      const { email, name, businessId } = await signedUp();
      await verifyBusiness(h.services, businessId);
      await mailTo(email, /is verified/);
      const forBusiness = { businessId, businessName: name };
      const { account } = await h.services.accounts.generatePermanent(forBusiness, CLI, permanentInputOf());
      await h.services.collections.sandboxTransfer(forBusiness, {
        accountNumber: account.accountNumber,
        amount: 50_000_00,
      });
      await h.services.payoutSettings.setApiPayouts(businessId, true);
      const dormant = SANDBOX_PAYEES.find((payee) => payee.outcome === "failed");
      const paid = SANDBOX_PAYEES.find((payee) => payee.outcome === "successful");
      assert.ok(dormant && paid);
      /** A payout to `payee`, sent and finished by the embedded bank at once. */
      const payTo = async (payee: { bankCode: string; accountNumber: string }, amount: number) => {
        const made = await h.services.payouts.create(forBusiness, {
          amount,
          bankCode: payee.bankCode,
          accountNumber: payee.accountNumber,
          narration: "Supplier",
        });
        await h.services.payoutTracker.run();
        await h.services.bankPayoutNotices?.run();
        return made;
      };
      const payout = await payTo(dormant, 2_500_00);
      const failed = await mailTo(email, /a payout of NGN 2,500\.00 failed/);
      wellFormed(failed, `/dashboard/payouts/${payout.id}`);
      assert.match(failed.text ?? "", /Account dormant/);

      const returned = SANDBOX_PAYEES.find((payee) => payee.outcome === "reversed");
      assert.ok(returned);
      const sentBack = await payTo(returned, 1_200_00);
      const back = await mailTo(email, /a payout of NGN 1,200\.00 came back/);
      wellFormed(back, `/dashboard/payouts/${sentBack.id}`);
      assert.match(back.text ?? "", /the fee is not returned/);

      await h.services.settlementTerms.setAccount(businessId, CLI, {
        bankCode: paid.bankCode,
        accountNumber: paid.accountNumber,
      });
      const changed = await mailTo(email, /the settlement account was changed/);
      wellFormed(changed, "/dashboard/settlements");
      assert.ok(
        changed.text?.includes(`******${paid.accountNumber.slice(-4)}`),
        "the number, all but its last four hidden",
      );
      assert.ok(!changed.text?.includes(paid.accountNumber), "never the whole number");
    });

    test("the outbox keeps nothing readable, drops what it sent, and tries again when the server is away", async () => {
      const rows = await h.storage.db.selectFrom("mail_outbox").selectAll().execute();
      assert.ok(rows.length > 0);
      for (const row of rows) {
        assert.equal(row.status, "sent");
        assert.equal(row.sealed, null, "sent: its content dropped");
      }
      await smtp.close();
      const id = await h.services.mailer.queue("test.unsent", "someone@mail.example", {
        subject: "Your reset link",
        text: "https://vas.example.test/reset/SECRET-TOKEN",
        html: "<p>https://vas.example.test/reset/SECRET-TOKEN</p>",
      });
      const queued = await h.storage.db
        .selectFrom("mail_outbox")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      assert.ok(queued.sealed && !queued.sealed.includes("SECRET-TOKEN") && !queued.sealed.includes("reset"));
      assert.equal(await h.services.mailer.deliver(), 0);
      const retried = await h.storage.db
        .selectFrom("mail_outbox")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      assert.equal(retried.status, "queued");
      assert.equal(retried.attempts, 1);
      assert.ok(retried.next_attempt_at > queued.next_attempt_at, "tried again later");
      assert.ok(retried.last_error);
      smtp = await startSmtp();
    });
  });
}

describe("mail without SMTP_URL (development)", () => {
  test("each message is an .eml file in DATA_DIR/mail", async () => {
    const h = await createHarness({ env: { PUBLIC_URL } });
    try {
      const user = await signedUpOwner(h.services, {
        businessName: "Files Ltd",
        email: "owner@files.example",
        password: PASSWORD,
      });
      await verifyBusiness(h.services, user.businessId as string);
      await h.services.mailer.idle();
      const dir = path.join(h.dir, "mail");
      const files = readdirSync(dir).filter((name) => name.endsWith(".eml"));
      assert.equal(files.length, 1);
      const mail = await simpleParser(readFileSync(path.join(dir, files[0] as string)));
      assert.equal(mail.subject, "Files Ltd is verified");
      assert.match(mail.text ?? "", /https:\/\/vas\.example\.test\/dashboard\/home/);
    } finally {
      await h.close();
    }
  });
});
