import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PasswordResets } from "../src/businesses/password-resets.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { linkIn, mailsTo } from "./helpers/mail-files.js";
import { signedUpOwner } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";

// Issue 28, item 4: "Forgot password" on both surfaces, over HTTP. The link is mailed (read back
// from DATA_DIR/mail), works once for 30 minutes, a newer one voids the older, using it ends
// every session of the user, and the answer is the same for an address with no account.

const PASSWORD = "correct horse battery staple 42";
const NEW_PASSWORD = "lagos lagoon at low tide 19";
const PUBLIC_URL = "http://vas.test:8080";

for (const dialect of DIALECTS) {
  describe(`forgot password on ${dialect}`, () => {
    let h: Harness;
    let offset = 0;
    const logs: string[] = [];

    before(async () => {
      h = await createHarness({
        dialect,
        now: () => Date.now() + offset,
        env: { PUBLIC_URL, SIGN_IN_RATE_LIMIT_PER_MIN: "0" },
        logStream: { write: (line: string) => logs.push(line) },
      });
    });
    after(() => h.close());

    let serial = 0;
    const account = async () => {
      const email = `owner${++serial}.${dialect}@reset.example`;
      await signedUpOwner(h.services, { businessName: `Reset ${serial} Ltd`, email, password: PASSWORD });
      return email;
    };
    const signIn = async (client: ReturnType<typeof pageClient>, email: string, password: string) => {
      const login = await client.get("/dashboard/login");
      return client.post("/dashboard/login", { _csrf: login.token ?? "", email, password });
    };
    /** Asks for a link as someone at the sign-in page would, and answers the page's redirect. */
    const ask = async (email: string, base = "/dashboard") => {
      const client = pageClient(h.app);
      const form = await client.get(`${base}/forgot`);
      const asked = await client.post(`${base}/forgot`, { _csrf: form.token ?? "", email });
      // The link is made after the answer (issue 43): wait for it, then for its mail.
      await h.services.passwordResets.idle();
      await h.services.mailer.idle();
      return asked;
    };
    /** The path and query of the newest reset link mailed to `email`. */
    const newestLink = async (email: string, base = "/dashboard") => {
      const mails = (await mailsTo(h.dir, email)).filter((mail) => mail.subject === "Reset your password");
      return linkIn(mails.at(-1), `${PUBLIC_URL}${base}/reset?token=`).slice(PUBLIC_URL.length);
    };

    test("the same answer for an address with no account; a link mailed for one that has", async () => {
      const unknown = await ask("nobody@reset.example");
      assert.equal(unknown.statusCode, 303);
      assert.equal(unknown.headers.location, "/dashboard/forgot?sent=1");
      assert.deepEqual(await mailsTo(h.dir, "nobody@reset.example"), []);
      const email = await account();
      const known = await ask(email);
      assert.equal(known.statusCode, 303);
      assert.equal(known.headers.location, unknown.headers.location);
      const sent = await pageClient(h.app).get("/dashboard/forgot?sent=1");
      assert.match(sent.response.body, /If an account has that address, a link/);
      assert.match(await newestLink(email), /^\/dashboard\/reset\?token=[A-Za-z0-9_-]{43}$/);
      assertFailPage(await ask("not an email"), 400, /id="form-error">Email is not an email address/);
    });

    test("the link sets a new password once, ends every session, and the old password no longer works", async () => {
      const email = await account();
      const elsewhere = pageClient(h.app);
      assert.equal((await signIn(elsewhere, email, PASSWORD)).statusCode, 303);
      assert.equal((await elsewhere.get("/dashboard/home")).response.statusCode, 200);
      await ask(email);
      const link = await newestLink(email);
      const browser = pageClient(h.app);
      const form = await browser.get(link);
      assert.equal(form.response.statusCode, 200);
      const token = new URL(link, PUBLIC_URL).searchParams.get("token") ?? "";
      const send = (password: string, confirm = password) =>
        browser.post("/dashboard/reset", { _csrf: form.token ?? "", token, password, confirm });
      assertFailPage(await send(NEW_PASSWORD, "something else entirely 7"), 400, /not the same/);
      assertFailPage(await send("password"), 400, /id="form-error">Password: /);
      const done = await send(NEW_PASSWORD);
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, "/dashboard/login?reset=1");
      // Every session ended; the old password is refused, the new one signs in.
      assert.equal((await elsewhere.get("/dashboard/home")).response.statusCode, 303);
      assert.notEqual((await signIn(pageClient(h.app), email, PASSWORD)).headers.location, "/dashboard/home");
      assert.equal(
        (await signIn(pageClient(h.app), email, NEW_PASSWORD)).headers.location,
        "/dashboard/home",
      );
      // Used up.
      const again = await pageClient(h.app).get(link);
      assert.equal(again.response.statusCode, 410);
      assert.match(again.response.body, /expired or was already used/);
      assertFailPage(await send(NEW_PASSWORD), 410, /expired or was already used/);
      // Nothing logged the link.
      assert.ok(!logs.some((line) => line.includes(token)), "the token is in no log line");
    });

    test("a newer link voids the older; a link is good for 30 minutes", async () => {
      const email = await account();
      await ask(email);
      const first = await newestLink(email);
      await ask(email);
      const second = await newestLink(email);
      assert.notEqual(first, second);
      assert.equal((await pageClient(h.app).get(first)).response.statusCode, 410, "voided");
      assert.equal((await pageClient(h.app).get(second)).response.statusCode, 200);
      offset += 31 * 60_000;
      try {
        assert.equal((await pageClient(h.app).get(second)).response.statusCode, 410, "expired");
      } finally {
        offset -= 31 * 60_000;
      }
      assert.equal(
        (await pageClient(h.app).get("/dashboard/reset?token=made-up-token-0123456789")).response.statusCode,
        410,
      );
    });

    test("the answer reads nothing and waits for no link, whether or not the address has an account (issue 43)", async () => {
      const email = await account();
      // The service over the same database, each use of it noted in order with the answers.
      const steps: string[] = [];
      const storage = new Proxy(h.services.storage, {
        get(target, property) {
          steps.push("database");
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const resets = new PasswordResets({ storage, notices: h.services.notices });
      for (const address of ["nobody.timing@reset.example", email]) {
        steps.length = 0;
        await resets.request("business", address, "/dashboard");
        steps.push("answered");
        await resets.idle();
        assert.equal(steps[0], "answered", `${address}: the answer came before any database work`);
        assert.ok(steps.includes("database"), `${address}: the address was looked up after the answer`);
      }
      await h.services.mailer.idle();
      assert.match(await newestLink(email), /^\/dashboard\/reset\?token=/, "the known address got its link");
      assert.deepEqual(await mailsTo(h.dir, "nobody.timing@reset.example"), []);
      await assert.rejects(
        resets.request("business", "not an email", "/dashboard"),
        /Email is not an email address/,
      );
    });

    test("an operator's link opens the console's form", async () => {
      const email = `ops.${dialect}@reset.example`;
      await h.services.users.createOperator(email, PASSWORD);
      await ask(email, "/admin");
      const link = await newestLink(email, "/admin");
      const browser = pageClient(h.app);
      const form = await browser.get(link);
      assert.equal(form.response.statusCode, 200);
      const token = new URL(link, PUBLIC_URL).searchParams.get("token") ?? "";
      const done = await browser.post("/admin/reset", {
        _csrf: form.token ?? "",
        token,
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      assert.equal(done.headers.location, "/admin/login?reset=1");
      // A business user's address is not an operator's: nothing mailed for the console.
      const business = await account();
      await ask(business, "/admin");
      assert.deepEqual(
        (await mailsTo(h.dir, business)).filter((mail) => (mail.text ?? "").includes("/admin/reset")),
        [],
      );
    });
  });
}

function assertFailPage(response: { statusCode: number; body: string }, status: number, message: RegExp) {
  assert.equal(response.statusCode, status, response.body.slice(0, 300));
  assert.match(response.body, message);
}
