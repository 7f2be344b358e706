import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import { collectionsChart, niceCeiling } from "../src/dashboard/collections-chart.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, verifyBusiness } from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { notification } from "./helpers/notifications.js";
import { pageClient } from "./helpers/page-client.js";

// An overview that shows (issue 28, item 10), on each database: collections per day for 30
// days as a server-drawn SVG with a table for screen readers, days in the business's time zone;
// the getting-started checklist until it is done; webhook endpoints changed from the dashboard.

const PASSWORD = "correct horse battery staple 42";
const HOUR = 3_600_000;

test("the chart's top is a round number at or above the largest day", () => {
  assert.equal(niceCeiling(0), 100);
  assert.equal(niceCeiling(101), 200);
  assert.equal(niceCeiling(150_000), 200_000);
  assert.equal(niceCeiling(500_000), 500_000);
  assert.equal(niceCeiling(500_001), 1_000_000);
  const chart = collectionsChart([
    { date: "2026-11-26", count: 0, amount: 0 },
    { date: "2026-11-27", count: 2, amount: 150_000 },
  ]);
  assert.equal(chart.bars[0]?.height, 0);
  assert.equal(chart.bars[1]?.title, "27 Nov: NGN 1,500.00 from 2 payments");
  assert.equal(chart.gridlines.at(-1)?.label, "NGN 2,000");
  assert.deepEqual(chart.total, { count: 2, amount: 150_000 });
});

for (const dialect of DIALECTS) {
  describe(`the overview on ${dialect}`, () => {
    let h: Harness;
    let business: ForBusiness;
    let email: string;
    const now = Date.parse("2026-11-27T10:00:00.000Z");

    before(async () => {
      h = await createHarness({ dialect, now: () => now, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      email = `owner.${dialect}@overviewfoods.example`;
      ({ business } = await signedUpBusiness(h.services, {
        businessName: "Overview Foods",
        email,
        password: PASSWORD,
      }));
    });
    after(() => h?.close());

    async function signedIn() {
      const client = pageClient(h.app);
      assert.equal((await client.signIn("/dashboard", email, PASSWORD)).statusCode, 303);
      return client;
    }

    /** The screen reader's table: [day, payments, collected] rows, newest first. */
    const figures = (body: string) =>
      [
        ...body.matchAll(
          /<tr><td><time datetime="(\d{4}-\d\d-\d\d)">[^<]*<\/time><\/td><td>([\d,]+)<\/td><td>(NGN [\d,.]+)<\/td><\/tr>/g,
        ),
      ].map((m) => [m[1], m[2], m[3]]);

    test("the checklist shows what is left and goes once every step is done", async () => {
      const client = await signedIn();
      const first = await client.get("/dashboard/home");
      assert.match(first.response.body, /Getting started/);
      assert.match(first.response.body, /0 of 5 done/);
      assert.match(first.response.body, /<a href="\/dashboard\/verification">Get verified<\/a>/);

      await verifyBusiness(h.services, business.businessId);
      await h.services.businesses.createKey(business.businessId);
      const made = await h.services.accounts.generatePermanent(business, CLI, permanentInputOf());
      const middle = await client.get("/dashboard/home");
      assert.match(middle.response.body, /3 of 5 done/);
      assert.match(
        middle.response.body,
        /✓<\/span> Get verified <span class="visually-hidden">\(done\)<\/span>/,
      );
      assert.match(middle.response.body, /<a href="\/dashboard\/webhooks">Add a webhook endpoint<\/a>/);

      await h.services.webhooks.create(business, {
        url: "https://hooks.overviewfoods.example/vas",
        events: null,
      });
      await h.services.collections.receive(
        notification(made.account.accountNumber, 250_000, new Date(now - HOUR).toISOString()),
      );
      const done = await client.get("/dashboard/home");
      assert.doesNotMatch(done.response.body, /Getting started/);
    });

    test("collections per day: 30 days of the business's zone, as bars and as a table", async () => {
      const [account] = (await h.services.accounts.list(business, { page: 1, limit: 1 })).items;
      assert.ok(account);
      // 2026-11-25 23:30 UTC is 00:30 on the 26th in Lagos; 35 days ago is outside the window.
      for (const [paidAt, amount] of [
        ["2026-11-25T22:30:00.000Z", 100_000],
        ["2026-11-25T23:30:00.000Z", 40_000],
        ["2026-11-26T12:00:00.000Z", 60_000],
        ["2026-10-23T12:00:00.000Z", 999_900],
      ] as const) {
        await h.services.collections.receive(notification(account.accountNumber, amount, paidAt));
      }
      const client = await signedIn();
      const body = (await client.get("/dashboard/home")).response.body;
      const rows = figures(body);
      assert.equal(rows.length, 30, "every day of the 30, a quiet one as zero");
      assert.deepEqual(rows[0], ["2026-11-27", "1", "NGN 2,500.00"], "today: the payment an hour ago");
      assert.deepEqual(rows[1], ["2026-11-26", "2", "NGN 1,000.00"], "00:30 and 13:00 WAT on the 26th");
      assert.deepEqual(rows[2], ["2026-11-25", "1", "NGN 1,000.00"], "23:30 WAT on the 25th");
      assert.deepEqual(rows[29]?.slice(0, 2), ["2026-10-29", "0"]);
      assert.match(body, /<svg viewBox="0 0 720 220" width="100%" aria-hidden="true" focusable="false"/);
      assert.equal([...body.matchAll(/<rect /g)].length, 30);
      assert.match(body, /<title>26 Nov: NGN 1,000.00 from 2 payments<\/title>/);
      assert.match(body, /from 4 payments<\/figcaption>|<strong>NGN 4,500.00<\/strong> from 4 payments/);
      assert.doesNotMatch(body, /<script(?! src="\/dashboard\/assets\/dashboard\.js")/, "no inline script");

      // The same payments in Kolkata (UTC+5:30): 22:30 UTC is 04:00 on the 26th there.
      await h.services.profiles.setTimeZone(business.businessId, CLI, "Asia/Kolkata");
      const kolkata = figures((await client.get("/dashboard/home")).response.body);
      assert.deepEqual(kolkata[1], ["2026-11-26", "3", "NGN 2,000.00"]);
      assert.deepEqual(kolkata[2], ["2026-11-25", "0", "NGN 0.00"]);
      // A day in Kolkata starts at 18:30 UTC: a payment at 18:10 and one at 18:40 fall on two days.
      await h.services.collections.receive(
        notification(account.accountNumber, 1_000, "2026-11-26T18:10:00.000Z"),
      );
      await h.services.collections.receive(
        notification(account.accountNumber, 2_000, "2026-11-26T18:40:00.000Z"),
      );
      const split = await h.services.collectionReads.perDay(business, "Asia/Kolkata");
      assert.equal(split.find((day) => day.date === "2026-11-26")?.amount, 200_000 + 1_000);
      assert.equal(split.find((day) => day.date === "2026-11-27")?.amount, 250_000 + 2_000);
      await h.services.profiles.setTimeZone(business.businessId, CLI, "Africa/Lagos");
    });

    test("a webhook endpoint's URL and events are changed from its page, refused in the words of its label", async () => {
      const client = await signedIn();
      const [endpoint] = await h.services.webhooks.list(business);
      assert.ok(endpoint);
      const list = await client.get("/dashboard/webhooks");
      assert.match(list.response.body, new RegExp(`href="/dashboard/webhooks/${endpoint.id}/edit"`));
      const form = await client.get(`/dashboard/webhooks/${endpoint.id}/edit`);
      assert.match(form.response.body, /value="https:\/\/hooks\.overviewfoods\.example\/vas"/);
      const refused = await client.post(`/dashboard/webhooks/${endpoint.id}/edit`, {
        _csrf: form.token ?? "",
        url: "ftp://hooks.overviewfoods.example/vas",
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /id="url-error">URL must be an http or https URL</);
      const saved = await client.post(`/dashboard/webhooks/${endpoint.id}/edit`, {
        _csrf: form.token ?? "",
        url: "https://hooks.overviewfoods.example/v2",
        "event:payment.received": "on",
        "event:account.reissued": "on",
      });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, "/dashboard/webhooks?done=updated");
      const changed = await h.services.webhooks.get(business, endpoint.id);
      assert.equal(changed.url, "https://hooks.overviewfoods.example/v2");
      assert.deepEqual([...(changed.events ?? [])].sort(), ["account.reissued", "payment.received"]);
      const every = await client.post(`/dashboard/webhooks/${endpoint.id}/edit`, {
        _csrf: form.token ?? "",
        url: "https://hooks.overviewfoods.example/v2",
      });
      assert.equal(every.statusCode, 303);
      assert.equal(
        (await h.services.webhooks.get(business, endpoint.id)).events,
        null,
        "none ticked: every type",
      );
    });
  });
}
