import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { totpCode } from "../src/businesses/totp.js";
import { runVas } from "./helpers/cli.js";
import { DIALECTS, databaseUrl } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { mailsTo } from "./helpers/mail-files.js";
import { signedUpOwner } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";
import { signedInOperator } from "./helpers/two-factor.js";

// Issue 28, item 4: recovery codes and the operator's reset, over HTTP on each database. Ten
// codes come with two-factor sign-in, shown once; each signs in once in place of the app's code
// (of two sign-ins racing with one code, one wins); new ones void the old. An operator who has
// checked who is asking turns a user's two-factor off from the console or the CLI: audited, the
// user's sessions end, the user is mailed.

const PASSWORD = "correct horse battery staple 42";
const STEP_MS = 30_000;
const CODES = /<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g;

for (const dialect of DIALECTS) {
  describe(`recovery codes and two-factor resets on ${dialect}`, () => {
    let h: Harness;
    let offset = 0;
    const now = () => Date.now() + offset;
    const masterKey = Buffer.alloc(32, 7);

    before(async () => {
      h = await createHarness({ dialect, now, masterKey, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
    });
    after(() => h.close());

    let serial = 0;
    /** A business's owner, signed in, with two-factor turned on from the Security page: its codes. */
    async function ownerWithCodes() {
      const email = `owner${++serial}.${dialect}@codes.example`;
      const user = await signedUpOwner(h.services, {
        businessName: `Codes ${serial} Ltd`,
        email,
        password: PASSWORD,
      });
      const browser = pageClient(h.app);
      await browser.signIn("/dashboard", email, PASSWORD);
      const security = await browser.get("/dashboard/security");
      await browser.post("/dashboard/security/totp/start", { _csrf: security.token ?? "" });
      const { secret } = (await h.services.secondFactor.pendingTotp(user.id)) ?? { secret: "" };
      offset += STEP_MS;
      const confirmed = await browser.post("/dashboard/security/totp/confirm", {
        _csrf: security.token ?? "",
        code: totpCode(secret, now()),
        password: PASSWORD,
      });
      assert.equal(confirmed.statusCode, 303);
      assert.equal(confirmed.headers.location, "/dashboard/security?done=totp-on");
      const shown = await browser.get("/dashboard/security?done=totp-on");
      const codes = [...shown.response.body.matchAll(CODES)].map((match) => match[1] as string);
      const again = await browser.get("/dashboard/security?done=totp-on");
      assert.equal([...again.response.body.matchAll(CODES)].length, 0, "shown once: a refresh shows none");
      return { email, user, browser, codes, secret };
    }

    /** Signs in with the password, then `code` at the code step: the final answer. */
    async function signInWith(email: string, code: string) {
      const browser = pageClient(h.app);
      const first = await browser.signIn("/dashboard", email, PASSWORD);
      assert.equal(first.headers.location, "/dashboard/login/code");
      const step = await browser.get("/dashboard/login/code");
      return {
        browser,
        answer: await browser.post("/dashboard/login/code", { _csrf: step.token ?? "", code }),
      };
    }

    test("ten codes are shown once; each signs in once; new ones void the old", async () => {
      const { email, browser, codes, secret } = await ownerWithCodes();
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10);
      const again = await browser.get("/dashboard/security");
      assert.equal([...again.response.body.matchAll(CODES)].length, 0, "shown only once");
      assert.match(again.response.body, /10 of your recovery codes are left/);

      const [first, second] = codes;
      const signedIn = await signInWith(email, (first as string).toUpperCase().replace("-", ""));
      assert.equal(
        signedIn.answer.headers.location,
        "/dashboard/home",
        "typed without the dash, in capitals",
      );
      assert.match(
        (await signedIn.browser.get("/dashboard/security")).response.body,
        /9 of your recovery codes are left/,
      );
      const reused = await signInWith(email, first as string);
      assert.equal(reused.answer.statusCode, 401);
      assert.match(reused.answer.body, /That code is not right/);

      const page = await signedIn.browser.get("/dashboard/security");
      offset += STEP_MS;
      const wrong = await signedIn.browser.post("/dashboard/security/recovery-codes", {
        _csrf: page.token ?? "",
        password: "not my password at all 5",
        code: totpCode(secret, now()),
      });
      assert.equal(wrong.statusCode, 401);
      // A recovery code signs in, and nothing more (issue 43): new codes take the app's.
      const byRecovery = await signedIn.browser.post("/dashboard/security/recovery-codes", {
        _csrf: page.token ?? "",
        password: PASSWORD,
        code: second as string,
      });
      assert.equal(byRecovery.statusCode, 401);
      assert.match(byRecovery.body, /a recovery code signs you in, and nothing more/);
      const renewed = await signedIn.browser.post("/dashboard/security/recovery-codes", {
        _csrf: page.token ?? "",
        password: PASSWORD,
        code: totpCode(secret, now()),
      });
      assert.equal(renewed.statusCode, 303);
      const renewedPage = await signedIn.browser.get(renewed.headers.location as string);
      const fresh = [...renewedPage.response.body.matchAll(CODES)].map((match) => match[1] as string);
      assert.equal(fresh.length, 10);
      assert.equal(
        (await signInWith(email, second as string)).answer.statusCode,
        401,
        "the old codes are void",
      );
      assert.equal((await signInWith(email, fresh[0] as string)).answer.headers.location, "/dashboard/home");
    });

    test("two sign-ins racing with one code: one signs in", async () => {
      const { email, codes } = await ownerWithCodes();
      const code = codes[3] as string;
      const answers = await Promise.all([signInWith(email, code), signInWith(email, code)]);
      const statuses = answers.map((a) => a.answer.statusCode).sort();
      assert.deepEqual(statuses, [303, 401]);
    });

    test("an operator resets two-factor from the console, confirmed, audited and mailed; the CLI does the same", async () => {
      const { email, user, browser } = await ownerWithCodes();
      const opsEmail = `ops.${dialect}@codes.example`;
      const { client: operator } = await signedInOperator(h.services, h.app, opsEmail, PASSWORD, { now });
      const businessPage = await operator.get(`/admin/businesses/${user.businessId}`);
      assert.match(
        businessPage.response.body,
        new RegExp(`${email.replace(".", "\\.")}</strong> · two-factor sign-in on`),
      );
      const action = `/admin/businesses/${user.businessId}/users/${user.id}/reset-two-factor`;
      const unconfirmed = await operator.post(action, { _csrf: businessPage.token ?? "" });
      assert.equal(unconfirmed.statusCode, 400);
      assert.match(unconfirmed.body, /Tick the box to confirm/);
      assert.equal((await h.services.users.getUser(user.id)).totpEnabled, true, "nothing changed");
      const reset = await operator.post(action, { _csrf: businessPage.token ?? "", confirm: "yes" });
      assert.equal(reset.statusCode, 303);
      assert.equal((await h.services.users.getUser(user.id)).totpEnabled, false);
      assert.equal(
        (await browser.get("/dashboard/home")).response.statusCode,
        303,
        "the user's sessions ended",
      );
      await h.services.mailer.idle();
      const mails = await mailsTo(h.dir, email);
      assert.ok(mails.some((mail) => mail.subject === "Two-factor sign-in was turned off for your account"));
      const activity = await operator.get("/admin/security");
      assert.ok(
        activity.response.body.includes(
          `Two-factor sign-in reset by an operator; every session ended: ${email}`,
        ),
        "in the operator's activity, by name",
      );
      // The password alone signs in now.
      const signedIn = await pageClient(h.app).signIn("/dashboard", email, PASSWORD);
      assert.equal(signedIn.headers.location, "/dashboard/home");

      // The CLI, for another user.
      const other = await ownerWithCodes();
      const cli = await runVas(["user", "reset-two-factor", "--email", other.email, "--json"], {
        DATABASE_URL: databaseUrl(h.database),
        DATA_DIR: h.dir,
        VAS_MASTER_KEY: masterKey.toString("hex"),
        NODE_ENV: "test",
      });
      assert.equal(cli.code, 0, cli.stderr);
      assert.deepEqual(JSON.parse(cli.stdout), {
        userId: other.user.id,
        email: other.email,
        twoFactor: "off",
        mail: "sent",
      });
      assert.equal((await h.services.users.getUser(other.user.id)).totpEnabled, false);
      const none = await runVas(["user", "reset-two-factor", "--email", other.email], {
        DATABASE_URL: databaseUrl(h.database),
        DATA_DIR: h.dir,
        VAS_MASTER_KEY: masterKey.toString("hex"),
        NODE_ENV: "test",
      });
      assert.equal(none.code, 1);
      assert.match(none.stderr, /has no two-factor sign-in to reset/);
    });
  });
}
