import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { totpCode } from "../src/businesses/totp.js";
import { runCli } from "../src/cli/run.js";
import { DIALECTS, databaseUrl } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { lastMail, linkIn, mailsTo, pathOf } from "./helpers/mail-files.js";
import { invitedMember, joinByLink } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";

// Issue 28, items 2 and 3, over HTTP on both databases: sign-up confirmed by a mailed link (the
// same answer whether or not the email has an account), invitations, roles enforced by the
// server on every route, role changes, removal, handing the business over, and the CLI's
// invite-owner. The browser walk-through is in dashboard.test.ts.

const PASSWORD = "correct horse battery staple 42";
const MEMBER_PASSWORD = "kano market before the rains 8";
const CONFIRM_SUBJECT = "Confirm your email to create your account";

type Client = ReturnType<typeof pageClient>;

for (const dialect of DIALECTS) {
  describe(`teams and sign-up on ${dialect}`, () => {
    let h: Harness;
    let offset = 0;
    let serial = 0;
    const mail = () => ({ dir: h.dir, mailer: h.services.mailer });

    before(async () => {
      h = await createHarness({
        dialect,
        now: () => Date.now() + offset,
        env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" },
      });
    });
    after(() => h.close());

    /** A business signed up in the dashboard: its owner's client, signed in, and their email. */
    async function owner(): Promise<{ client: Client; email: string; businessId: string }> {
      const email = `owner${++serial}.${dialect}@team.example`;
      const client = pageClient(h.app);
      const created = await client.signUp(mail(), {
        businessName: `Team ${serial} Ltd`,
        email,
        password: PASSWORD,
      });
      assert.equal(created.statusCode, 303, created.body);
      assert.equal(created.headers.location, "/dashboard/verification");
      const user = await h.services.users.businessUserByEmail(email);
      return { client, email, businessId: user.businessId as string };
    }

    /** Invites `role` from `inviter`'s Team page; the invitee joins from the mailed link. */
    async function member(inviter: Client, role: string): Promise<{ client: Client; email: string }> {
      const email = `${role}${++serial}.${dialect}@team.example`;
      const client = await invitedMember(h.app, mail(), inviter, { email, role, password: MEMBER_PASSWORD });
      return { client, email };
    }

    /** Opens an invitation's link in a new browser and joins with a password: the page and the answer. */
    const join = (link: string) => joinByLink(h.app, link, MEMBER_PASSWORD);

    test("a sign-up answers the same for a taken email, signs nobody in, and mails the owner instead", async () => {
      const { email } = await owner();
      const before = (await h.services.businesses.listBusinesses()).length;
      const answers = [];
      for (const address of [email, `new${++serial}.${dialect}@team.example`]) {
        const client = pageClient(h.app);
        const form = await client.get("/dashboard/signup");
        const sent = await client.post("/dashboard/signup", {
          _csrf: form.token ?? "",
          businessName: "Copycat Ltd",
          email: address,
          password: PASSWORD,
        });
        assert.equal(String(sent.headers["set-cookie"] ?? "").includes("vas_session="), false);
        answers.push([sent.statusCode, sent.headers.location, sent.body]);
      }
      assert.deepEqual(answers[0], answers[1], "the same answer, taken or not");
      assert.deepEqual(answers[0]?.slice(0, 2), [303, "/dashboard/signup?sent=1"]);
      assert.equal((await h.services.businesses.listBusinesses()).length, before, "nothing made yet");
      const tried = await lastMail(mail(), email, "Someone tried to sign up with your email");
      assert.match(tried.text ?? "", /already has one\. Nothing was changed/);
      assert.equal((await mailsTo(h.dir, email)).filter((m) => m.subject === CONFIRM_SUBJECT).length, 1);
    });

    test("the confirmation link works once, within 24 hours, and a GET of it changes nothing", async () => {
      const email = `once${++serial}.${dialect}@team.example`;
      const client = pageClient(h.app);
      const form = await client.get("/dashboard/signup");
      await client.post("/dashboard/signup", {
        _csrf: form.token ?? "",
        businessName: "Once Ltd",
        email,
        password: PASSWORD,
      });
      const link = linkIn(await lastMail(mail(), email, CONFIRM_SUBJECT), "http");
      const token = new URL(link).searchParams.get("token") ?? "";
      assert.equal((await client.get(pathOf(link))).response.statusCode, 200);
      assert.equal((await client.get(pathOf(link))).response.statusCode, 200, "opening twice is harmless");
      await assert.rejects(h.services.users.businessUserByEmail(email), "no user before the button");
      const page = await client.get(pathOf(link));
      const confirmed = await client.post("/dashboard/confirm", { _csrf: page.token ?? "", token });
      assert.equal(confirmed.statusCode, 303);
      const home = await client.get("/dashboard/home");
      assert.equal(home.response.statusCode, 200, "the link signs the owner in");
      const again = await pageClient(h.app).get(pathOf(link));
      assert.equal(again.response.statusCode, 410);
      assert.match(again.response.body, /expired or was already used/);
      const user = await h.services.users.businessUserByEmail(email);
      assert.equal(user.memberRole, "owner");

      const late = `late${++serial}.${dialect}@team.example`;
      await h.services.signUps.request({ businessName: "Late Ltd", email: late, password: PASSWORD });
      const lateLink = linkIn(await lastMail(mail(), late, CONFIRM_SUBJECT), "http");
      offset += 24 * 3_600_000 + 1_000;
      try {
        assert.equal((await pageClient(h.app).get(pathOf(lateLink))).response.statusCode, 410);
      } finally {
        offset -= 24 * 3_600_000 + 1_000;
      }
    });

    test("a viewer reads every page and is offered no form it cannot send", async () => {
      const boss = await owner();
      const viewer = await member(boss.client, "viewer");
      for (const path of ["/dashboard/home", "/dashboard/keys", "/dashboard/payouts", "/dashboard/team"]) {
        const read = await viewer.client.get(path);
        assert.equal(read.response.statusCode, 200, path);
      }
      const keysPage = await viewer.client.get("/dashboard/keys");
      assert.doesNotMatch(keysPage.response.body, /Create a key pair/, "no button it cannot use");
      // Each form it does not allow is a 403 from the server: test/permissions.test.ts walks them all.
      const { token } = await viewer.client.get("/dashboard/keys");
      assert.equal((await viewer.client.post("/dashboard/keys", { _csrf: token ?? "" })).statusCode, 403);
      assert.deepEqual(await h.services.businesses.listKeys(boss.businessId), [], "nothing was made");
    });

    test("a developer makes keys but sends no money; finance the other way round", async () => {
      const boss = await owner();
      const developer = await member(boss.client, "developer");
      const finance = await member(boss.client, "finance");
      const devPage = await developer.client.get("/dashboard/keys");
      const made = await developer.client.post("/dashboard/keys", { _csrf: devPage.token ?? "" });
      assert.equal(made.statusCode, 303);
      const shown = await developer.client.get("/dashboard/keys");
      assert.match(shown.response.body, /this is the only time it is shown/);
      const again = await developer.client.get("/dashboard/keys");
      assert.doesNotMatch(again.response.body, /this is the only time it is shown/, "shown once");
      const finPage = await finance.client.get("/dashboard/keys");
      assert.equal(
        (await finance.client.post("/dashboard/keys", { _csrf: finPage.token ?? "" })).statusCode,
        403,
      );
      const devPayouts = await developer.client.get("/dashboard/payouts");
      assert.equal(
        (await developer.client.post("/dashboard/payouts/review", { _csrf: devPayouts.token ?? "" }))
          .statusCode,
        403,
      );
      const finPayouts = await finance.client.get("/dashboard/payouts");
      const review = await finance.client.post("/dashboard/payouts/review", {
        _csrf: finPayouts.token ?? "",
      });
      assert.notEqual(review.statusCode, 403, "finance reaches the payout form's own checks");
    });

    test("a role change applies on the next click; a removed member's sessions end at once", async () => {
      const boss = await owner();
      const dev = await member(boss.client, "developer");
      const members = await h.services.team.members(boss.businessId);
      const devId = members.find((m) => m.email === dev.email)?.id as string;

      const team = await boss.client.get("/dashboard/team");
      const changed = await boss.client.post(`/dashboard/team/members/${devId}/role`, {
        _csrf: team.token ?? "",
        role: "viewer",
      });
      assert.equal(changed.headers.location, "/dashboard/team?done=role");
      const keys = await dev.client.get("/dashboard/keys");
      assert.equal((await dev.client.post("/dashboard/keys", { _csrf: keys.token ?? "" })).statusCode, 403);

      const owners = await boss.client.get("/dashboard/team");
      const unconfirmed = await boss.client.post(`/dashboard/team/members/${devId}/remove`, {
        _csrf: owners.token ?? "",
      });
      assert.equal(unconfirmed.statusCode, 400, "removal asks to confirm");
      assert.equal((await dev.client.get("/dashboard/home")).response.statusCode, 200);
      const removed = await boss.client.post(`/dashboard/team/members/${devId}/remove`, {
        _csrf: owners.token ?? "",
        confirm: "yes",
      });
      assert.equal(removed.headers.location, "/dashboard/team?done=removed");
      const after = await dev.client.get("/dashboard/home");
      assert.equal(after.response.statusCode, 303);
      assert.equal(after.response.headers.location, "/dashboard/login?next=%2Fdashboard%2Fhome");
      const shown = await boss.client.get("/dashboard/team?done=removed");
      assert.match(shown.response.body, /The member is removed, and signed out everywhere/);
      const activity = await boss.client.get("/dashboard/security");
      assert.match(activity.response.body, new RegExp(`Member removed; their sessions ended: ${dev.email}`));
      assert.match(
        activity.response.body,
        new RegExp(`Joined the team as Developer</td><td class="wrap-anywhere">${dev.email}</td>`),
        "their entries keep their email",
      );
    });

    test("an admin manages members but never the owner; nobody invites an owner", async () => {
      const boss = await owner();
      const admin = await member(boss.client, "admin");
      const ownerId = (await h.services.users.businessUserByEmail(boss.email)).id;
      const page = await admin.client.get("/dashboard/team");
      const remove = await admin.client.post(`/dashboard/team/members/${ownerId}/remove`, {
        _csrf: page.token ?? "",
        confirm: "yes",
      });
      assert.equal(remove.statusCode, 403);
      const demote = await admin.client.post(`/dashboard/team/members/${ownerId}/role`, {
        _csrf: page.token ?? "",
        role: "viewer",
      });
      assert.equal(demote.statusCode, 403);
      const asOwner = await admin.client.post("/dashboard/team/invitations", {
        _csrf: page.token ?? "",
        email: `second.owner.${dialect}@team.example`,
        role: "owner",
      });
      assert.equal(asOwner.statusCode, 400);
      assert.match(asOwner.body, /Role must be one of Admin, Developer, Finance, Viewer/);
      const handOver = await admin.client.post("/dashboard/team/owner", { _csrf: page.token ?? "" });
      assert.equal(handOver.statusCode, 403);
    });

    test("the owner hands the business over with a password and a code; the database holds one owner", async () => {
      const boss = await owner();
      const finance = await member(boss.client, "finance");
      const bossUser = await h.services.users.businessUserByEmail(boss.email);
      const financeId = (await h.services.users.businessUserByEmail(finance.email)).id;
      const form = async () => (await boss.client.get("/dashboard/team")).token ?? "";

      const without = await boss.client.post("/dashboard/team/owner", {
        _csrf: await form(),
        member: financeId,
        password: PASSWORD,
        code: "000000",
      });
      assert.equal(without.statusCode, 403);
      assert.match(without.body, /Turn on two-factor sign-in first/);

      const { secret } = await h.services.secondFactor.beginTotp(bossUser.id);
      await h.services.secondFactor.confirmTotp(bossUser.id, totpCode(secret, Date.now() + offset), PASSWORD);
      // Turning two-factor on ended the other sessions: the owner signs in again, with a code.
      offset += 30_000;
      await boss.client.signIn("/dashboard", boss.email, PASSWORD);
      const codePage = await boss.client.get("/dashboard/login/code");
      const signedIn = await boss.client.post("/dashboard/login/code", {
        _csrf: codePage.token ?? "",
        code: totpCode(secret, Date.now() + offset),
      });
      assert.equal(signedIn.statusCode, 303);
      offset += 30_000;
      const wrong = await boss.client.post("/dashboard/team/owner", {
        _csrf: await form(),
        member: financeId,
        password: "not my password at all",
        code: totpCode(secret, Date.now() + offset),
      });
      assert.equal(wrong.statusCode, 401);
      const handed = await boss.client.post("/dashboard/team/owner", {
        _csrf: await form(),
        member: financeId,
        password: PASSWORD,
        code: totpCode(secret, Date.now() + offset),
      });
      assert.equal(handed.statusCode, 303, handed.body);
      const roles = Object.fromEntries(
        (await h.services.team.members(boss.businessId)).map((m) => [m.email, m.role]),
      );
      assert.deepEqual(roles, { [boss.email]: "admin", [finance.email]: "owner" });
      // Both owners are told, the one before and the one now (issue 43, item 8).
      for (const email of [boss.email, finance.email]) {
        const told = await lastMail(mail(), email, /was handed over to/);
        assert.match(told.text ?? "", new RegExp(`${boss.email} handed .* over to ${finance.email}`));
      }
      await assert.rejects(
        h.storage.db
          .updateTable("users")
          .set({ member_role: "owner" })
          .where("id", "=", bossUser.id)
          .execute(),
        "a second owner is refused by the database",
      );
    });

    test("an invitation works once, for 7 days; a revoked one not at all; an email is one business's", async () => {
      const boss = await owner();
      const other = await owner();
      const page = await boss.client.get("/dashboard/team");
      for (const email of [`late.${dialect}@team.example`, `revoked.${dialect}@team.example`, other.email]) {
        await boss.client.post("/dashboard/team/invitations", {
          _csrf: page.token ?? "",
          email,
          role: "viewer",
        });
      }
      const open = await h.services.invitations.open(boss.businessId);
      const revokedId = open.find((i) => i.email.startsWith("revoked."))?.id as string;
      await boss.client.post(`/dashboard/team/invitations/${revokedId}/revoke`, { _csrf: page.token ?? "" });
      const revokedLink = linkIn(await lastMail(mail(), `revoked.${dialect}@team.example`, /^Join /), "http");
      assert.equal((await pageClient(h.app).get(pathOf(revokedLink))).response.statusCode, 410);

      const takenLink = linkIn(await lastMail(mail(), other.email, /^Join /), "http");
      const { joined: taken } = await join(takenLink);
      assert.equal(taken.statusCode, 409);
      assert.match(taken.body, /an email belongs to one business/);

      const lateLink = linkIn(await lastMail(mail(), `late.${dialect}@team.example`, /^Join /), "http");
      offset += 7 * 86_400_000 + 1_000;
      try {
        assert.equal((await pageClient(h.app).get(pathOf(lateLink))).response.statusCode, 410);
      } finally {
        offset -= 7 * 86_400_000 + 1_000;
      }
      const stored = await h.storage.db.selectFrom("invitations").select("token_hash").execute();
      for (const link of [lateLink, revokedLink, takenLink]) {
        const token = new URL(link).searchParams.get("token") ?? "";
        assert.ok(!stored.some((row) => row.token_hash === token), "only the token's hash is kept");
      }
    });

    test("vas business invite-owner: the owner of a business made by the CLI joins from the mail", async () => {
      const created = await h.services.businesses.createBusiness("Cli Made Ltd", "completed");
      const businessId = created.business.id;
      const out: string[] = [];
      const env = {
        DATABASE_URL: databaseUrl(h.database),
        DATA_DIR: h.dir,
        VAS_MASTER_KEY: h.services.config.masterKey?.toString("hex") ?? "",
        LOG_LEVEL: "silent",
      };
      const io = { env, stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t) };
      const email = `cli.owner.${dialect}@team.example`;
      assert.equal(await runCli(["business", "invite-owner", businessId, email], io), 0, out.join(""));
      assert.match(out.join(""), new RegExp(`Invitation mailed to ${email.replace(".", "\\.")}`));
      await h.services.mailer.deliver();
      const link = linkIn(
        await lastMail(mail(), email, "Join Cli Made Ltd on the Virtual Account Service"),
        "http",
      );
      const { page, joined } = await join(link);
      assert.match(page.response.body, /as <strong>Owner<\/strong>/);
      assert.equal(joined.statusCode, 303, joined.body);
      assert.equal((await h.services.users.businessUserByEmail(email)).memberRole, "owner");
      out.length = 0;
      assert.equal(await runCli(["business", "invite-owner", businessId, "another@team.example"], io), 1);
      assert.match(out.join(""), /This business has an owner/);
    });
  });
}
