import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { totpCode } from "../src/businesses/totp.js";
import { CLI } from "../src/core/actor.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { lastMail } from "./helpers/mail-files.js";
import { invitedMember, signedUpOwner } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";
import { enrolAuthenticator, setUpFromSecurityPage, signInWithCode } from "./helpers/two-factor.js";

// Issue 43, item 3, over HTTP on each database: money moves from the dashboard only with a code
// from an authenticator. A member without one is led to set it up; one just set up moves no
// money for MONEY_COOL_OFF_HOURS (2 here; an injected clock crosses it); the password and a recovery
// code sign in and nothing more (two-factor is not turned off, nor the codes replaced); the owner
// is mailed whenever a member's second factor is set up, turned off or reset; the owner can
// require two-factor of every member, who then can do nothing else until they have it.

const PASSWORD = "correct horse battery staple 42";
const MEMBER_PASSWORD = "kano market before the rains 8";
const STEP_MS = 30_000;
const HOUR_MS = 3_600_000;
const [PAYEE] = SANDBOX_PAYEES;
const SETUP = "/dashboard/security?setup=money";

for (const dialect of DIALECTS) {
  describe(`money and the second factor on ${dialect}`, () => {
    let h: Harness;
    let offset = 0;
    const now = () => Date.now() + offset;
    const mail = () => ({ dir: h.dir, mailer: h.services.mailer });
    let serial = 0;

    before(async () => {
      h = await createHarness({
        dialect,
        now,
        env: {
          SIGN_IN_RATE_LIMIT_PER_MIN: "0",
          MONEY_COOL_OFF_HOURS: "2",
          DASHBOARD_SESSION_IDLE_MINUTES: "240",
        },
      });
    });
    after(() => h.close());

    /** A verified business with NGN 50,000 in, its owner signed in with an authenticator past its cool-off. */
    async function business() {
      serial++;
      const email = `owner${serial}.${dialect}@money2fa.example`;
      const name = `Second Factor ${serial} Ltd`;
      const owner = await signedUpOwner(h.services, { businessName: name, email, password: PASSWORD });
      const forBusiness = { businessId: owner.businessId as string, businessName: name };
      await verifyBusiness(h.services, forBusiness.businessId);
      const secret = await enrolAuthenticator(h.services.secondFactor, owner.id, PASSWORD, now);
      offset += 2 * HOUR_MS + STEP_MS;
      const client = await signInWithCode(h.app, "/dashboard", email, PASSWORD, secret, now);
      const account = await h.services.accounts.generatePermanent(forBusiness, CLI, permanentInputOf());
      await h.services.collections.sandboxTransfer(forBusiness, {
        accountNumber: account.account.accountNumber,
        amount: 5_000_000,
      });
      const code = () => {
        offset += STEP_MS;
        return totpCode(secret, now());
      };
      return { owner, email, client, forBusiness, secret, code };
    }

    /** The payout form's review, then its confirmation with `code`: the confirmation's answer. */
    async function payOut(client: ReturnType<typeof pageClient>, code: string | undefined) {
      const page = await client.get("/dashboard/payouts");
      const order = {
        bankCode: PAYEE?.bankCode ?? "",
        accountNumber: PAYEE?.accountNumber ?? "",
        amount: "1,000",
      };
      const review = await client.post("/dashboard/payouts/review", { _csrf: page.token ?? "", ...order });
      const reference = /name="reference" value="([^"]+)"/.exec(review.body)?.[1] ?? "";
      return client.post("/dashboard/payouts", {
        _csrf: page.token ?? "",
        ...order,
        reference,
        ...(code === undefined ? {} : { code }),
      });
    }

    const payouts = async (businessId: string) =>
      (await h.services.payoutListing.list({ businessId, businessName: "" }, { page: 1, limit: 100 })).items;

    test("a finance member without an authenticator is led to set one up; the owner hears of it; two hours later it pays", async () => {
      const { client: ownerClient, email: ownerEmail, forBusiness } = await business();
      const financeEmail = `finance${serial}.${dialect}@money2fa.example`;
      const finance = await invitedMember(h.app, mail(), ownerClient, {
        email: financeEmail,
        role: "finance",
        password: MEMBER_PASSWORD,
      });
      const review = await finance.post("/dashboard/payouts/review", {
        _csrf: (await finance.get("/dashboard/payouts")).token ?? "",
        bankCode: PAYEE?.bankCode ?? "",
        accountNumber: PAYEE?.accountNumber ?? "",
        amount: "1,000",
      });
      assert.match(
        review.body,
        /Moving money takes a code from an authenticator app: <a href="\/dashboard\/security\?setup=money">/,
      );
      const sent = await payOut(finance, "123456");
      assert.equal(sent.statusCode, 303);
      assert.equal(sent.headers.location, SETUP, "led to set one up");
      const security = await finance.get(SETUP);
      assert.match(
        security.response.body,
        /Moving money takes a code from an authenticator app\. Set one up here/,
      );
      for (const [from, to, form] of [
        ["/dashboard/payouts", "/dashboard/payouts/api", { apiPayouts: "on" }],
        ["/dashboard/settlements", "/dashboard/settlements/run", {}],
        [
          "/dashboard/settlements",
          "/dashboard/settlements/account",
          { bankCode: PAYEE?.bankCode ?? "", accountNumber: PAYEE?.accountNumber ?? "", nameDiffers: "yes" },
        ],
      ] as const) {
        const answer = await finance.post(to, { _csrf: (await finance.get(from)).token ?? "", ...form });
        assert.equal(answer.headers.location, SETUP, to);
      }
      assert.deepEqual(await payouts(forBusiness.businessId), [], "nothing moved");

      // Set up from the page it was led to: the owner is mailed; for 24 hours it moves nothing.
      const member = await h.services.users.businessUserByEmail(financeEmail);
      offset += STEP_MS;
      const secret = await setUpFromSecurityPage(
        finance,
        "/dashboard",
        h.services.secondFactor,
        member.id,
        MEMBER_PASSWORD,
        now,
      );
      const told = await lastMail(mail(), ownerEmail, /two-factor sign-in was set up/);
      assert.match(
        told.text ?? "",
        new RegExp(`${financeEmail} set up an authenticator app .* It moves no money for 2 hours`),
      );
      const page = await finance.get("/dashboard/security");
      assert.match(
        page.response.body,
        /Your authenticator is new: it moves money \(payouts, refunds, settlements\) from <strong>/,
      );
      offset += STEP_MS;
      const cooling = await payOut(finance, totpCode(secret, now()));
      assert.equal(cooling.statusCode, 403);
      assert.match(
        cooling.body,
        /Your authenticator was set up recently: it moves money from \d{4}-\d\d-\d\d \d\d:\d\d WAT/,
      );
      assert.deepEqual(await payouts(forBusiness.businessId), [], "nothing moved inside the cool-off");
      offset += 2 * HOUR_MS;
      const paid = await payOut(finance, totpCode(secret, now()));
      assert.equal(paid.statusCode, 303, paid.body);
      assert.match(String(paid.headers.location), /^\/dashboard\/payouts\/po_/);
      assert.equal((await payouts(forBusiness.businessId)).length, 1);
    });

    test("the password and a recovery code sign in, and nothing more", async () => {
      const { email, secret, code, owner } = await business();
      const security = await (
        await signInWithCode(h.app, "/dashboard", email, PASSWORD, secret, () => now() + STEP_MS)
      ).get("/dashboard/security");
      assert.equal(security.response.statusCode, 200);
      offset += 2 * STEP_MS;
      const recoveryCodes = await h.services.secondFactor.regenerateRecoveryCodes(owner.id, PASSWORD, code());
      // Someone with the password and one recovery code signs in...
      const thief = pageClient(h.app);
      await thief.signIn("/dashboard", email, PASSWORD);
      const step = await thief.get("/dashboard/login/code");
      const signedIn = await thief.post("/dashboard/login/code", {
        _csrf: step.token ?? "",
        code: recoveryCodes[0] ?? "",
      });
      assert.equal(signedIn.headers.location, "/dashboard/home");
      const page = await thief.get("/dashboard/security");
      // ...but cannot turn two-factor off, make new codes, or move money with it.
      for (const [to, form] of [
        [
          "/dashboard/security/totp/disable",
          { password: PASSWORD, code: recoveryCodes[1] ?? "", confirm: "yes" },
        ],
        ["/dashboard/security/totp/disable", { password: PASSWORD, confirm: "yes" }],
        ["/dashboard/security/recovery-codes", { password: PASSWORD, code: recoveryCodes[1] ?? "" }],
      ] as const) {
        const refused = await thief.post(to, { _csrf: page.token ?? "", ...form });
        assert.equal(refused.statusCode, 401, to);
      }
      assert.equal((await h.services.users.getUser(owner.id)).totpEnabled, true, "still on");
      const paid = await payOut(thief, recoveryCodes[1]);
      assert.equal(paid.statusCode, 401, "a recovery code moves no money");
      assert.deepEqual(await payouts(owner.businessId as string), []);
      // With the app's own code, the owner turns it off: told by mail, as a member's change is.
      const off = await thief.post("/dashboard/security/totp/disable", {
        _csrf: page.token ?? "",
        password: PASSWORD,
        code: code(),
        confirm: "yes",
      });
      assert.equal(off.statusCode, 303);
      await lastMail(mail(), email, /two-factor sign-in was turned off/);
    });

    test("the owner requires two-factor: a member without it does nothing else until they set it up", async () => {
      const { client: ownerClient, email: ownerEmail } = await business();
      const developerEmail = `dev${serial}.${dialect}@money2fa.example`;
      const developer = await invitedMember(h.app, mail(), ownerClient, {
        email: developerEmail,
        role: "developer",
        password: MEMBER_PASSWORD,
      });
      const team = await ownerClient.get("/dashboard/team");
      assert.match(team.response.body, /Require two-factor sign-in of every member/);
      const required = await ownerClient.post("/dashboard/team/two-factor", {
        _csrf: team.token ?? "",
        required: "yes",
      });
      assert.equal(required.statusCode, 303);
      for (const path of ["/dashboard/home", "/dashboard/keys", "/dashboard/accounts"]) {
        const led = await developer.get(path);
        assert.equal(led.response.headers.location, "/dashboard/security?setup=required", path);
      }
      const security = await developer.get("/dashboard/security?setup=required");
      const keys = await developer.post("/dashboard/keys", { _csrf: security.token ?? "" });
      assert.equal(keys.headers.location, "/dashboard/security?setup=required", "no form either");
      assert.match(security.response.body, /Your business requires two-factor sign-in for every member/);
      const member = await h.services.users.businessUserByEmail(developerEmail);
      offset += STEP_MS;
      await setUpFromSecurityPage(
        developer,
        "/dashboard",
        h.services.secondFactor,
        member.id,
        MEMBER_PASSWORD,
        now,
      );
      assert.equal(
        (await developer.get("/dashboard/keys")).response.statusCode,
        200,
        "everything opens again",
      );
      await lastMail(mail(), ownerEmail, /two-factor sign-in was set up/);

      // An operator's reset: the owner is told, and the member is led to set it up again.
      await h.services.secondFactor.resetByOperator(member.id, CLI);
      const told = await lastMail(mail(), ownerEmail, /two-factor sign-in was reset by an operator/);
      assert.match(told.text ?? "", /They move no money until they set an authenticator up again/);
      const again = await signInAfterReset(developerEmail);
      assert.equal(
        (await again.get("/dashboard/home")).response.headers.location,
        "/dashboard/security?setup=required",
      );
      const optional = await ownerClient.post("/dashboard/team/two-factor", {
        _csrf: (await ownerClient.get("/dashboard/team")).token ?? "",
        required: "no",
      });
      assert.equal(optional.statusCode, 303);
      assert.equal((await again.get("/dashboard/home")).response.statusCode, 200);
    });

    async function signInAfterReset(email: string) {
      const client = pageClient(h.app);
      const signedIn = await client.signIn("/dashboard", email, MEMBER_PASSWORD);
      assert.equal(signedIn.statusCode, 303);
      return client;
    }
  });
}
