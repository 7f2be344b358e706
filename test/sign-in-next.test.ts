import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { totpCode } from "../src/businesses/totp.js";
import { BUSINESS_SURFACE } from "../src/dashboard/business-scope.js";
import { safeNext } from "../src/dashboard/sign-in.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness } from "./helpers/harness.js";
import { signedUpOwner } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";
import { enrolAuthenticator } from "./helpers/two-factor.js";

// Issue 43, item 8: a page asked for while signed out (a bookmark, a link in one of the
// service's own mails) is where signing in returns to, through the code step too; only a path
// of the same surface, never another site.

const PASSWORD = "correct horse battery staple 42";

test("only a page of the surface is a place to return to", () => {
  for (const good of ["/dashboard/payouts/po_1", "/dashboard/transactions?from=2026-11-01T10:00"]) {
    assert.equal(safeNext(BUSINESS_SURFACE, good), good);
  }
  for (const bad of [
    "//evil.example/x",
    "https://evil.example/dashboard/x",
    "/dashboard//evil.example",
    "/dashboard\\\\evil.example",
    "/admin/businesses",
    "/dashboard/login",
    "/dashboard/logout",
    "/dashboard/x\r\nSet-Cookie: a=b",
    "dashboard/x",
    ["/dashboard/x"],
    `/dashboard/${"x".repeat(2_000)}`,
  ]) {
    assert.equal(safeNext(BUSINESS_SURFACE, bad), undefined, String(bad));
  }
});

for (const dialect of DIALECTS) {
  describe(`signing in returns to the page asked for, on ${dialect}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
    });
    after(() => h.close());

    test("through the password and the code, to the page; never elsewhere", async () => {
      const email = `owner.${dialect}@next.example`;
      const owner = await signedUpOwner(h.services, { businessName: "Next Ltd", email, password: PASSWORD });
      const secret = await enrolAuthenticator(h.services.secondFactor, owner.id, PASSWORD);
      const client = pageClient(h.app);
      const asked = "/dashboard/transactions?amount=1500";
      const away = await client.get(asked);
      assert.equal(away.response.headers.location, `/dashboard/login?next=${encodeURIComponent(asked)}`);
      const login = await client.get(String(away.response.headers.location));
      assert.match(
        login.response.body,
        /<input type="hidden" name="next" value="\/dashboard\/transactions\?amount=1500">/,
      );
      const passed = await client.post("/dashboard/login", {
        _csrf: login.token ?? "",
        email,
        password: PASSWORD,
        next: asked,
      });
      assert.equal(passed.headers.location, `/dashboard/login/code?next=${encodeURIComponent(asked)}`);
      const step = await client.get(String(passed.headers.location));
      const done = await client.post("/dashboard/login/code", {
        _csrf: step.token ?? "",
        code: totpCode(secret, Date.now()),
        next: asked,
      });
      assert.equal(done.headers.location, asked);

      const other = pageClient(h.app);
      const form = await other.get("/dashboard/login?next=%2F%2Fevil.example%2F");
      assert.doesNotMatch(form.response.body, /name="next"/);
      const elsewhere = await other.post("/dashboard/login", {
        _csrf: form.token ?? "",
        email,
        password: PASSWORD,
        next: "https://evil.example/",
      });
      assert.equal(elsewhere.headers.location, "/dashboard/login/code", "no place to return to but home");
    });
  });
}
