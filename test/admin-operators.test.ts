import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, type Harness } from "./helpers/harness.js";
import { lastMail, linkIn, pathOf } from "./helpers/mail-files.js";
import { pageClient } from "./helpers/page-client.js";
import { setUpFromSecurityPage, signedInOperator, signInWithCode } from "./helpers/two-factor.js";

// Operators managed from the console (issue 28, item 11), on each database: an admin invites a
// reviewer by mail, who chooses a password from the link; a reviewer is refused what is an
// admin's by the server; a disabled operator's session ends at once and their sign-in is
// refused; the console always keeps an enabled admin, even when two admins disable each other
// at the same moment.

const ADMIN_PASSWORD = "lagos harbour ferry at dawn 7";
const REVIEWER_PASSWORD = "kano market before the rains 8";

for (const dialect of DIALECTS) {
  describe(`operators managed from the console on ${dialect}`, () => {
    let h: Harness;
    let admin: ReturnType<typeof pageClient>;
    const adminEmail = `admin.${dialect}@console.example`;
    const reviewerEmail = `reviewer.${dialect}@console.example`;
    let reviewerSecret = "";

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      ({ client: admin } = await signedInOperator(h.services, h.app, adminEmail, ADMIN_PASSWORD));
    });
    after(() => h?.close());

    const send = async (client: ReturnType<typeof pageClient>, to: string, form: Record<string, string>) => {
      const { token } = await client.get("/admin/operators");
      return client.post(to, { _csrf: token ?? "", ...form });
    };
    const idOf = async (email: string) =>
      (await h.services.operators.list()).find((operator) => operator.email === email)?.id as string;

    test("an invited reviewer chooses a password from the mailed link and is refused what is an admin's", async () => {
      const refused = await send(admin, "/admin/operators", { email: "not-an-email", role: "reviewer" });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /id="email-error">Their email is not an email address</);
      const invited = await send(admin, "/admin/operators", { email: reviewerEmail, role: "reviewer" });
      assert.equal(invited.statusCode, 303);
      assert.equal(invited.headers.location, "/admin/operators?done=invited");
      const again = await send(admin, "/admin/operators", { email: reviewerEmail, role: "admin" });
      assert.equal(again.statusCode, 409);

      const mail = await lastMail(
        { dir: h.dir, mailer: h.services.mailer },
        reviewerEmail,
        /invited to the Virtual Account Service/,
      );
      assert.match(
        mail.text ?? "",
        new RegExp(
          `${adminEmail} invited ${reviewerEmail} to operate the Virtual Account Service as Reviewer`,
        ),
      );
      const link = linkIn(mail, "http");
      const reviewer = pageClient(h.app);
      assert.equal(
        (await reviewer.signIn("/admin", reviewerEmail, REVIEWER_PASSWORD)).statusCode,
        401,
        "no password before the link",
      );
      const opened = await reviewer.get(pathOf(link));
      const set = await reviewer.post("/admin/reset", {
        _csrf: opened.token ?? "",
        token: new URL(link).searchParams.get("token") ?? "",
        password: REVIEWER_PASSWORD,
        confirm: REVIEWER_PASSWORD,
      });
      assert.equal(set.statusCode, 303, set.body);
      assert.equal((await reviewer.signIn("/admin", reviewerEmail, REVIEWER_PASSWORD)).statusCode, 303);

      // Every operator signs in with two factors (issue 43): the first sign-in leads to setting
      // it up, and nothing else opens until it is.
      const first = await reviewer.get("/admin/businesses");
      assert.equal(first.response.headers.location, "/admin/security?setup=operator");
      assert.equal(
        (await reviewer.get("/admin/operators")).response.headers.location,
        "/admin/security?setup=operator",
      );
      const security = await reviewer.get("/admin/security?setup=operator");
      assert.match(
        security.response.body,
        /Operators sign in with two factors: set up an authenticator app here/,
      );
      reviewerSecret = await setUpFromSecurityPage(
        reviewer,
        "/admin",
        h.services.secondFactor,
        await idOf(reviewerEmail),
        REVIEWER_PASSWORD,
        () => Date.now() - 30_000,
      );

      const queue = await reviewer.get("/admin/businesses");
      assert.equal(queue.response.statusCode, 200);
      assert.doesNotMatch(
        queue.response.body,
        /href="\/admin\/operators"/,
        "no Operators link for a reviewer",
      );
      assert.equal((await reviewer.get("/admin/operators")).response.statusCode, 403);
      const created = await h.createBusiness({ name: "Reviewed Foods" });
      const page = await reviewer.get(`/admin/businesses/${created.businessId}`);
      const fee = await reviewer.post(`/admin/businesses/${created.businessId}/collection-fee`, {
        _csrf: page.token ?? "",
        percent: "10",
      });
      assert.equal(fee.statusCode, 403);
      assert.match(fee.body, /Your role as reviewer does not allow this/);
      const suspend = await reviewer.post(`/admin/businesses/${created.businessId}/suspend`, {
        _csrf: page.token ?? "",
        reason: "Not allowed",
      });
      assert.equal(suspend.statusCode, 403);
      // Issue 43, item 2: "reject" on a verified business is the same move out of `completed`.
      const rejected = await reviewer.post(`/admin/businesses/${created.businessId}/reject`, {
        _csrf: page.token ?? "",
        reason: "Suspended by another name",
      });
      assert.equal(rejected.statusCode, 403);
      assert.match(rejected.body, /Only an admin operator can suspend a verified business/);
      assert.equal(
        (await h.services.businesses.getBusiness(created.businessId)).verificationStatus,
        "completed",
      );
      const keyStillWorks = await h.request({ url: `${API}/account/list`, as: created });
      assert.equal(keyStillWorks.statusCode, 200, "its keys still answer");
      const invite = await reviewer.post("/admin/operators", {
        _csrf: page.token ?? "",
        email: "x@console.example",
        role: "admin",
      });
      assert.equal(invite.statusCode, 403);
    });

    test("a disabled operator's session ends at once and their sign-in is refused; enabled, they are back", async () => {
      const reviewer = await signInWithCode(
        h.app,
        "/admin",
        reviewerEmail,
        REVIEWER_PASSWORD,
        reviewerSecret,
      );
      const id = await idOf(reviewerEmail);
      const unticked = await send(admin, `/admin/operators/${id}/disable`, {});
      assert.equal(unticked.statusCode, 400);
      assert.equal((await reviewer.get("/admin/businesses")).response.statusCode, 200);
      const disabled = await send(admin, `/admin/operators/${id}/disable`, { confirm: "yes" });
      assert.equal(disabled.statusCode, 303);
      const after = await reviewer.get("/admin/businesses");
      assert.equal(after.response.statusCode, 303, "the session is gone");
      assert.equal(after.response.headers.location, "/admin/login?next=%2Fadmin%2Fbusinesses");
      const signIn = await reviewer.signIn("/admin", reviewerEmail, REVIEWER_PASSWORD);
      assert.equal(signIn.statusCode, 403);
      assert.match(signIn.body, /This account is disabled/);
      const wrong = await reviewer.signIn("/admin", reviewerEmail, "not the password at all 1");
      assert.equal(wrong.statusCode, 401, "a wrong password does not learn the account is disabled");
      assert.equal((await send(admin, `/admin/operators/${id}/enable`, {})).statusCode, 303);
      assert.equal((await reviewer.signIn("/admin", reviewerEmail, REVIEWER_PASSWORD)).statusCode, 303);
    });

    test("the last enabled admin stays: not disabled, not made a reviewer, not even by two admins at once", async () => {
      const adminId = await idOf(adminEmail);
      const reviewerId = await idOf(reviewerEmail);
      const actor = { type: "operator" as const, id: reviewerId };
      await assert.rejects(
        h.services.operators.setRole(actor, adminId, "reviewer"),
        /needs an enabled admin/,
      );
      await assert.rejects(h.services.operators.setDisabled(actor, adminId, true), /needs an enabled admin/);
      const self = await send(admin, `/admin/operators/${adminId}/disable`, { confirm: "yes" });
      assert.equal(self.statusCode, 400);
      assert.match(self.body, /You cannot disable yourself/);

      // Two admins, each disabling the other at the same moment: one of them stays.
      await h.services.operators.setRole({ type: "operator", id: adminId }, reviewerId, "admin");
      for (let round = 0; round < 5; round++) {
        const outcomes = await Promise.allSettled([
          h.services.operators.setDisabled({ type: "operator", id: adminId }, reviewerId, true),
          h.services.operators.setDisabled({ type: "operator", id: reviewerId }, adminId, true),
        ]);
        assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1, `round ${round}`);
        const admins = (await h.services.operators.list()).filter((o) => o.role === "admin" && !o.disabled);
        assert.equal(admins.length, 1);
        const [standing] = admins;
        const other = standing?.id === adminId ? reviewerId : adminId;
        await h.services.operators.setDisabled(
          { type: "operator", id: standing?.id as string },
          other,
          false,
        );
      }
    });
  });
}
