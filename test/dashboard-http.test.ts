import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CLI } from "../src/core/actor.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { pageClient } from "./helpers/page-client.js";

// The dashboard's HTTP surface without a browser (issue 13): headers, limits and refusals that a
// browser test would only see indirectly.

const PASSWORD = "correct horse battery staple 42";

for (const dialect of DIALECTS) {
  describe(`the dashboard over HTTP on ${dialect}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "3" } });
    });
    after(() => h.close());

    test("every page carries a strict CSP, no-store, and nothing loads from elsewhere", async () => {
      const { response } = await pageClient(h.app).get("/dashboard/login");
      assert.equal(response.statusCode, 200);
      assert.match(
        String(response.headers["content-security-policy"]),
        /default-src 'none'; script-src 'self'/,
      );
      assert.equal(response.headers["x-frame-options"], "DENY");
      assert.equal(response.headers["cache-control"], "no-store");
      assert.doesNotMatch(
        response.body,
        /(src|href)="(https?:)?\/\//,
        "no absolute or protocol-relative URL",
      );
      const cookie = String(response.headers["set-cookie"]);
      assert.match(cookie, /vas_csrf=.*HttpOnly.*SameSite=Lax/);
    });

    test("a form that is not urlencoded is a 415 page; an unknown page is an HTML 404", async () => {
      const browser = pageClient(h.app);
      const { token } = await browser.get("/dashboard/login");
      const json = await browser.post("/dashboard/login", { _csrf: token ?? "" }, "application/json");
      assert.equal(json.statusCode, 415);
      assert.match(String(json.headers["content-type"]), /text\/html/);
      const missing = await browser.get("/dashboard/no-such-page");
      assert.equal(missing.response.statusCode, 404);
      assert.match(missing.response.body, /There is no such page/);
    });

    test("a NUL byte in any form field, or a form with no body, is a 400 page that says what to fix", async () => {
      const browser = pageClient(h.app);
      const { token } = await browser.get("/dashboard/signup");
      for (const [url, form] of [
        [
          "/dashboard/signup",
          { businessName: "Nul\u0000 Ltd", email: "nul@example.com", password: "x".repeat(20) },
        ],
        ["/dashboard/login", { email: "nul\u0000@example.com", password: "whatever it is" }],
        ["/admin/login", { email: "ops@example.com", password: "pass\u0000word" }],
        ["/dashboard/webhooks", { url: "https://hooks.example.com/\u0000" }],
      ] as const) {
        const refused = await browser.post(url, { _csrf: token ?? "", ...form });
        assert.equal(refused.statusCode, 400, url);
        assert.match(refused.body, /contains a control character \(such as NUL\) that cannot be kept/, url);
        assert.match(String(refused.headers["content-type"]), /text\/html/);
      }
      const named = await browser.post("/dashboard/signup", { _csrf: token ?? "", businessName: "\u0000" });
      assert.match(named.body, /The field &quot;businessName&quot;|The field "businessName"/);
      for (const url of [
        "/dashboard/login",
        "/dashboard/webhooks",
        "/dashboard/security/password",
        "/admin/login",
      ]) {
        for (const headers of [
          { "x-csrf-token": token ?? "" },
          { "x-csrf-token": token ?? "", "content-type": "application/x-www-form-urlencoded" },
        ]) {
          const empty = await h.app.inject({ method: "POST", url, headers });
          assert.equal(empty.statusCode, 400, url);
          assert.match(empty.body, /The form arrived empty/, url);
        }
      }
    });

    test("a password typed into the email field is not kept in the audit log", async () => {
      const browser = pageClient(h.app);
      const { token } = await browser.get("/admin/login");
      const refused = await browser.post("/admin/login", {
        _csrf: token ?? "",
        email: "hunter2-is-my-password",
        password: "x",
      });
      assert.equal(refused.statusCode, 401, "the attempt was judged, not limited");
      const rows = await h.storage.db.selectFrom("audit_log").select("detail").execute();
      assert.ok(
        rows.some((row) => String(row.detail).includes("(not an email)")),
        "the attempt is audited",
      );
      assert.ok(
        rows.every((row) => !String(row.detail).includes("hunter2")),
        "what was typed is not",
      );
    });

    test("a form's every problem at once, each beside its field in the words of its label", async () => {
      const browser = pageClient(h.app);
      const form = await browser.get("/dashboard/signup");
      const refused = await browser.post("/dashboard/signup", {
        _csrf: form.token ?? "",
        businessName: "   ",
        email: "not-an-email",
        password: "short",
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /3 fields need a change/);
      for (const [field, problem] of [
        ["businessName", "Business name is required"],
        ["email", "Your email is not an email address"],
        ["password", "Password: use at least 12 characters"],
      ]) {
        assert.match(refused.body, new RegExp(`id="${field}-error">${problem}</p>`), field);
        assert.match(refused.body, new RegExp(`<a href="#${field}">${problem}</a>`), field);
        assert.match(
          refused.body,
          new RegExp(`id="${field}"[^>]*aria-describedby="[^"]*${field}-error"[^>]*aria-invalid="true"`),
        );
      }
      assert.match(refused.body, /id="email"[^>]*value="not-an-email"/, "what was typed is kept");
      assert.doesNotMatch(refused.body, /value="short"/, "but never the password");
      assert.doesNotMatch(refused.body, /email must be/, "never the API's words");

      await browser.signUp(
        { dir: h.dir, mailer: h.services.mailer },
        { businessName: "Fields Ltd", email: "owner@fields.example", password: PASSWORD },
      );
      const details = await browser.get("/dashboard/verification");
      const wrong = await browser.post("/dashboard/verification", {
        _csrf: details.token ?? "",
        registeredName: "Fields Limited",
        rcNumber: "12",
        address: "",
        contactName: "Ada Obi",
        contactEmail: "ada at fields",
        contactPhone: "12",
      });
      assert.equal(wrong.statusCode, 400);
      assert.match(wrong.body, /4 fields need a change/);
      for (const problem of [
        "RC number is RC, BN or IT and 4 to 8 digits",
        "Registered address is required",
        "Contact email is not an email address",
        "Contact phone is 7 to 15 digits",
      ]) {
        assert.match(wrong.body, new RegExp(`class="field-error" id="[a-zA-Z]+-error">${problem}`), problem);
      }
      assert.match(wrong.body, /id="registeredName"[^>]*value="Fields Limited"/);
    });

    test("sign-in attempts are limited per client address (429), and a stale session cookie is cleared", async () => {
      const browser = pageClient(h.app);
      const { token } = await browser.get("/dashboard/login");
      const answers = [];
      for (let i = 0; i < 4; i++) {
        answers.push(
          await browser.post("/dashboard/login", {
            _csrf: token ?? "",
            email: "nobody@example.com",
            password: "not the password",
          }),
        );
      }
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [401, 401, 401, 429],
      );
      // The limit's page is the form again, what was typed kept, and says when to try again.
      const limited = answers[3]?.body ?? "";
      assert.match(
        limited,
        /Too many attempts from your address\. Try again in \d+ seconds? \(at \d\d:\d\d:\d\d WAT\)/,
      );
      assert.match(limited, /name="email"[^>]*value="nobody@example.com"/);
      assert.ok(Number(answers[3]?.headers["retry-after"]) > 0);
      const stale = await h.app.inject({
        method: "GET",
        url: "/dashboard/home",
        headers: { cookie: "vas_session=not-a-session" },
      });
      assert.equal(stale.statusCode, 303);
      assert.equal(stale.headers.location, "/dashboard/login?next=%2Fdashboard%2Fhome");
      assert.match(String(stale.headers["set-cookie"]), /vas_session=;/);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`the Security page's recent activity on ${dialect}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
    });
    after(() => h.close());

    /** The activity table's rows as [who, what], newest first; each must carry its time, in WAT. */
    const activity = (body: string) =>
      [
        ...body.matchAll(
          /<tr><td>([^<]*)<\/td><td class="wrap-anywhere">([^<]*)<\/td><td class="wrap-anywhere">[^<]*<\/td><td><span class="nowrap">\d{4}-\d\d-\d\d<\/span> <span class="nowrap">\d\d:\d\d:\d\d WAT<\/span><\/td><\/tr>/g,
        ),
      ].map((m) => [m[2], m[1]]);

    async function signUp(business: string, email: string) {
      const browser = pageClient(h.app);
      const created = await browser.signUp(
        { dir: h.dir, mailer: h.services.mailer },
        { businessName: business, email, password: PASSWORD },
      );
      assert.equal(created.statusCode, 303, created.body);
      return browser;
    }

    test("a business's users see its sign-ins, failures and sign-outs, newest first, and no other business's", async () => {
      const owner = await signUp("Activity Foods", "owner@activity.example");
      await signUp("Other Foods", "owner@other.example");
      const { token } = await owner.get("/dashboard/security");
      await owner.post("/dashboard/logout", { _csrf: token ?? "" });
      const login = await owner.get("/dashboard/login");
      const wrong = await owner.post("/dashboard/login", {
        _csrf: login.token ?? "",
        email: "owner@activity.example",
        password: "not the password at all",
      });
      assert.equal(wrong.statusCode, 401);
      const right = await owner.post("/dashboard/login", {
        _csrf: login.token ?? "",
        email: "owner@activity.example",
        password: PASSWORD,
      });
      assert.equal(right.statusCode, 303);
      const security = await owner.get("/dashboard/security");
      const guessed = await owner.post("/dashboard/security/password", {
        _csrf: security.token ?? "",
        current: "a guess from an open session",
        next: "another horse battery staple 43",
        confirm: "another horse battery staple 43",
      });
      assert.equal(guessed.statusCode, 401);
      const page = await owner.get("/dashboard/security");
      assert.match(page.response.body, /<h2 id="activity-heading">Recent activity<\/h2>/);
      // Each sign-in and failure says where it came from: the address and the browser.
      assert.match(
        page.response.body,
        /<td>Signed in<\/td><td class="wrap-anywhere">owner@activity\.example<\/td><td class="wrap-anywhere">127\.0\.0\.1, an unrecognised browser \(lightMyRequest\)<\/td>/,
      );
      assert.deepEqual(activity(page.response.body), [
        ["owner@activity.example", "Password not changed: the current password was wrong"],
        ["owner@activity.example", "Signed in"],
        ["owner@activity.example", "Sign-in failed: wrong password"],
        ["owner@activity.example", "Signed out"],
        ["owner@activity.example", "Signed up (email confirmed)"],
      ]);
      assert.doesNotMatch(
        page.response.body,
        /owner@other\.example/,
        "another business's activity is not shown",
      );
      assert.doesNotMatch(page.response.body, /not the password at all/, "never what was typed");
    });

    test("an operator sees their own doing", async () => {
      await h.services.users.createOperator("ops@vas.example", PASSWORD);
      const operator = pageClient(h.app);
      const { token } = await operator.get("/admin/login");
      const signedIn = await operator.post("/admin/login", {
        _csrf: token ?? "",
        email: "ops@vas.example",
        password: PASSWORD,
      });
      assert.equal(signedIn.statusCode, 303);
      const page = await operator.get("/admin/security");
      assert.deepEqual(activity(page.response.body), [
        ["ops@vas.example", "Signed in"],
        ["ops@vas.example", "Operator account created"],
      ]);
    });

    test("the payouts page shows the balance with what is pending, the switch and limits, and each payout", async () => {
      const owner = await signUp("Payout Page Foods", "owner@payouts.example");
      const empty = await owner.get("/dashboard/payouts");
      assert.equal(empty.response.statusCode, 200);
      assert.match(empty.response.body, /are <strong>off<\/strong> for your business/);
      assert.match(empty.response.body, /<dt>Pending payouts<\/dt><dd>NGN\u00a00\.00<\/dd>/);
      assert.match(empty.response.body, /No payout matches\./);
      const business = (await h.services.businesses.listBusinesses()).find(
        (b) => b.name === "Payout Page Foods",
      );
      assert.ok(business);
      const forBusiness = { businessId: business.businessId, businessName: business.name };
      // Only a verified business is issued numbers and moves money (issue 43).
      await verifyBusiness(h.services, business.businessId);
      await h.services.payoutSettings.setApiPayouts(business.businessId, true);
      const account = await h.services.accounts.generatePermanent(forBusiness, CLI, permanentInputOf());
      await h.services.collections.sandboxTransfer(forBusiness, {
        accountNumber: account.account.accountNumber,
        amount: 100_000,
      });
      const [payee] = SANDBOX_PAYEES;
      assert.ok(payee);
      await h.services.payouts.create(forBusiness, {
        amount: 25_000,
        bankCode: payee.bankCode,
        accountNumber: payee.accountNumber,
        narration: "Supplier June",
      });
      const listed = await owner.get("/dashboard/payouts?status=pending");
      assert.match(listed.response.body, /are <strong>on<\/strong> for your business/);
      assert.match(listed.response.body, /<dt>Pending payouts<\/dt><dd>NGN\u00a0260\.00<\/dd>/);
      assert.match(
        listed.response.body,
        new RegExp(`${payee.accountName}<br><span class="help">${payee.bankName} ${payee.accountNumber}`),
      );
      assert.match(listed.response.body, /Supplier June/);
      const none = await owner.get("/dashboard/payouts?status=failed");
      assert.match(none.response.body, /No payout matches\./);
      const bad = await owner.get("/dashboard/payouts?status=lost");
      assert.equal(bad.response.statusCode, 400);
      assert.match(bad.response.body, /status must be pending, successful, failed, reversed/);
    });
  });
}
