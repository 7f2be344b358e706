import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import { percentToBasisPoints } from "../src/dashboard/admin-pages.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { notification } from "./helpers/notifications.js";
import { pageClient } from "./helpers/page-client.js";
import { signedInOperator } from "./helpers/two-factor.js";

// The operator console across every business (issue 28, item 11), on each database: a search
// by name, email, RC number or account number; a customer's accounts and every payment; the
// collection fee set from the console; each history row naming who made it.

const PASSWORD = "correct horse battery staple 42";
const OPERATOR_PASSWORD = "lagos harbour ferry at dawn 7";

test("a fee typed as a percent is basis points, by its digits", () => {
  assert.equal(percentToBasisPoints("1.5"), 150);
  assert.equal(percentToBasisPoints("0"), 0);
  assert.equal(percentToBasisPoints("100"), 10_000);
  assert.equal(percentToBasisPoints("2.25%"), 225);
  for (const refused of ["100.01", "-1", "1.555", "one", ""]) {
    assert.throws(
      () => percentToBasisPoints(refused),
      /Fee \(percent\) must be a percent from 0 to 100/,
      refused,
    );
  }
});

for (const dialect of DIALECTS) {
  describe(`the operator console across businesses on ${dialect}`, () => {
    let h: Harness;
    let operator: ReturnType<typeof pageClient>;
    let operatorEmail: string;
    const made: { business: ForBusiness; email: string; account: string }[] = [];

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      operatorEmail = `ops.${dialect}@console.example`;
      ({ client: operator } = await signedInOperator(h.services, h.app, operatorEmail, OPERATOR_PASSWORD));
      for (const name of ["Zobo Drinks", "Kilishi Kings"]) {
        const email = `owner.${dialect}@${name.split(" ")[0]?.toLowerCase()}.example`;
        const { business } = await signedUpBusiness(h.services, {
          businessName: name,
          email,
          password: PASSWORD,
        });
        await verifyBusiness(h.services, business.businessId);
        // The same customer buys from both businesses.
        const generated = await h.services.accounts.generatePermanent(
          business,
          CLI,
          permanentInputOf({ email: `amaka.${dialect}@customers.example` }),
        );
        made.push({ business, email, account: generated.account.accountNumber });
      }
    });
    after(() => h?.close());

    const names = (body: string) =>
      [...body.matchAll(/<a href="\/admin\/businesses\/[0-9a-f-]{36}">([^<]+)<\/a>/g)].map((m) => m[1]);

    test("a business found by part of its name, an owner's email, its RC number or an account number", async () => {
      const [zobo, kilishi] = made as [(typeof made)[0], (typeof made)[0]];
      const byName = await operator.get("/admin/businesses?q=ZOBO");
      assert.deepEqual(names(byName.response.body), ["Zobo Drinks"]);
      const byEmail = await operator.get(
        `/admin/businesses?q=${encodeURIComponent(kilishi.email.toUpperCase())}`,
      );
      assert.deepEqual(names(byEmail.response.body), ["Kilishi Kings"]);
      // verifyBusiness submits RC1234567 for both.
      for (const typed of ["rc1234567", "RC 1234567", "1234567"]) {
        const byRc = await operator.get(`/admin/businesses?q=${encodeURIComponent(typed)}`);
        assert.deepEqual(names(byRc.response.body).sort(), ["Kilishi Kings", "Zobo Drinks"], typed);
      }
      const nul = await operator.get("/admin/businesses?q=Zobo%00");
      assert.equal(nul.response.statusCode, 200);
      assert.match(nul.response.body, /No business matches/);
      assert.equal((await operator.get("/admin/accounts?q=%00")).response.statusCode, 200);
      const byNumber = await operator.get(`/admin/businesses?q=${zobo.account}`);
      assert.deepEqual(names(byNumber.response.body), ["Zobo Drinks"]);
      // A number the account had before a re-issue still finds its business.
      const reissued = await h.services.accounts.generatePermanent(
        zobo.business,
        CLI,
        permanentInputOf({ email: `amaka.${dialect}@customers.example` }),
      );
      assert.notEqual(reissued.account.accountNumber, zobo.account);
      assert.deepEqual(names((await operator.get(`/admin/businesses?q=${zobo.account}`)).response.body), [
        "Zobo Drinks",
      ]);
      zobo.account = reissued.account.accountNumber;
      const none = await operator.get("/admin/businesses?q=no%25such");
      assert.match(none.response.body, /No business matches/);
      const business = await operator.get("/dashboard/home");
      assert.notEqual(business.response.statusCode, 200, "an operator's session opens no business page");
    });

    test("a customer's accounts across businesses, and every payment, latest first, paged", async () => {
      const byEmail = await operator.get(`/admin/accounts?q=amaka.${dialect}%40customers.example`);
      assert.deepEqual(names(byEmail.response.body).sort(), ["Kilishi Kings", "Zobo Drinks"]);
      const now = Date.now();
      for (let i = 0; i < 25; i++) {
        const { account } = made[i % 2] as (typeof made)[0];
        await h.services.collections.receive(
          notification(account, 10_000 + i, new Date(now - (25 - i) * 60_000).toISOString(), {
            sessionId: `console-${dialect}-${i}`,
          }),
        );
      }
      const first = await operator.get("/admin/transactions");
      const sessions = (body: string) =>
        [...body.matchAll(/<code>(console-[a-z]+-\d+)<\/code>/g)].map((m) => m[1]);
      assert.deepEqual(
        sessions(first.response.body),
        Array.from({ length: 20 }, (_, i) => `console-${dialect}-${24 - i}`),
      );
      assert.ok(names(first.response.body).includes("Kilishi Kings"));
      const older = /<a href="([^"]+)" rel="next">Older<\/a>/
        .exec(first.response.body)?.[1]
        ?.replaceAll("&amp;", "&");
      assert.ok(older);
      const second = await operator.get(older);
      assert.deepEqual(
        sessions(second.response.body),
        Array.from({ length: 5 }, (_, i) => `console-${dialect}-${4 - i}`),
      );
      assert.doesNotMatch(second.response.body, /rel="next"/);
      const one = await operator.get(`/admin/transactions?sessionId=console-${dialect}-7`);
      assert.deepEqual(sessions(one.response.body), [`console-${dialect}-7`]);
      const ofAccount = await operator.get(`/admin/transactions?accountNumber=${made[0]?.account}`);
      assert.equal(sessions(ofAccount.response.body).length, 13);
    });

    test("the collection fee set from the console applies to the next payment; a bad one is refused beside its field", async () => {
      const { business, account } = made[1] as (typeof made)[0];
      const page = await operator.get(`/admin/businesses/${business.businessId}`);
      assert.match(page.response.body, /On each payment received: <strong>0.00%<\/strong>, no cap/);
      const refused = await operator.post(`/admin/businesses/${business.businessId}/collection-fee`, {
        _csrf: page.token ?? "",
        percent: "150",
        cap: "",
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /id="percent-error">Fee \(percent\) must be a percent from 0 to 100/);
      const saved = await operator.post(`/admin/businesses/${business.businessId}/collection-fee`, {
        _csrf: page.token ?? "",
        percent: "1.5",
        cap: "20",
      });
      assert.equal(saved.statusCode, 303);
      const shown = await operator.get(String(saved.headers.location));
      assert.match(shown.response.body, /<strong>1.50%<\/strong>, at most NGN 20.00/);
      const small = await h.services.collections.receive(
        notification(account, 100_000, new Date().toISOString()),
      );
      assert.equal(small.transaction.fee, 1_500, "1.5% of NGN 1,000");
      const large = await h.services.collections.receive(
        notification(account, 1_000_000, new Date().toISOString()),
      );
      assert.equal(large.transaction.fee, 2_000, "capped at NGN 20");
    });

    test("each verification history row names who made it: the operator by email on the console, the user on both", async () => {
      const { business, email } = made[0] as (typeof made)[0];
      const page = await operator.get(`/admin/businesses/${business.businessId}`);
      await operator.post(`/admin/businesses/${business.businessId}/suspend`, {
        _csrf: page.token ?? "",
        reason: "Documents expired",
      });
      // The owner corrects and resubmits from the dashboard (a user's own change).
      const owner = pageClient(h.app);
      assert.equal((await owner.signIn("/dashboard", email, PASSWORD)).statusCode, 303);
      const form = await owner.get("/dashboard/verification");
      const resubmitted = await owner.post("/dashboard/verification", {
        _csrf: form.token ?? "",
        registeredName: "Zobo Drinks Limited",
        rcNumber: "RC7654321",
        address: "3 Broad Street, Lagos Island, Lagos",
        contactName: "Amaka Obi",
        contactEmail: "amaka@zobo.example",
        contactPhone: "+2348031234567",
      });
      assert.equal(resubmitted.statusCode, 303, resubmitted.body);
      const history = (await operator.get(`/admin/businesses/${business.businessId}`)).response.body;
      assert.match(history, new RegExp(`<td class="wrap-anywhere">${operatorEmail} \\(operator\\)</td>`));
      assert.match(history, new RegExp(`<td class="wrap-anywhere">${email}</td>`), "the business's own user");
      assert.match(history, /<td class="wrap-anywhere">The admin CLI<\/td>/);
      const theirs = (await owner.get("/dashboard/verification")).response.body;
      assert.match(theirs, /<td class="wrap-anywhere">An operator<\/td>/);
      assert.doesNotMatch(theirs, new RegExp(operatorEmail), "a business is not told an operator's email");
      assert.match(theirs, new RegExp(`<td class="wrap-anywhere">${email}</td>`));
    });
  });
}
