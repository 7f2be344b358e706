import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import type { User } from "../src/businesses/users.js";
import { transactionsToExport } from "../src/collections/transaction-search.js";
import { transactionQuery } from "../src/collections/validation.js";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import type { Transaction } from "../src/core/api-types.js";
import { check } from "../src/core/validation.js";
import { utcToZonedMinute, zonedTime } from "../src/core/zoned-time.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { openRecordingPage, skipWithoutBrowser } from "./helpers/browser.js";
import { browserSuite } from "./helpers/browser-suite.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  endpointAt,
  type Harness,
  permanentInputOf,
  verifyBusiness,
} from "./helpers/harness.js";
import { lastMail, linkIn } from "./helpers/mail-files.js";
import { signedUpBusiness } from "./helpers/members.js";
import { notification } from "./helpers/notifications.js";
import { pageClient } from "./helpers/page-client.js";

// The transactions a finance lead works with (issue 28, item 8), on each database: a search by
// the payer's name and the amount, paging controls, a CSV export of any filter that streams
// every page of it in GET /transactions' order, and a transaction's page with its event.

const PASSWORD = "correct horse battery staple 42";
const MINUTE = 60_000;

/** Payers and amounts (kobo) of the payments made, in the order they are recorded. */
const PAYERS = ["Ada Obi", "Bola Ade", "Chidi Eze", "100% Foods", "=HYPERLINK(1)", "ada lovelace"];

for (const dialect of DIALECTS) {
  describe(`transactions in the dashboard on ${dialect}`, () => {
    let h: Harness;
    let business: ForBusiness;
    let email: string;
    let owner: User;
    let accounts: string[];
    // Whole minutes: a filter typed in minutes bounds them exactly.
    const start = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * 60 * MINUTE;

    before(async () => {
      h = await createHarness({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });
      email = `finance.${dialect}@ledgerfoods.example`;
      ({ owner, business } = await signedUpBusiness(h.services, {
        businessName: "Ledger Foods",
        email,
        password: PASSWORD,
      }));
      await verifyBusiness(h.services, business.businessId);
      await h.services.webhooks.create(business, endpointAt("https://hooks.ledgerfoods.example/vas"));
      accounts = [];
      for (const customer of ["first", "second"]) {
        const made = await h.services.accounts.generatePermanent(
          business,
          CLI,
          permanentInputOf({ email: `${customer}.${dialect}@customers.example` }),
        );
        accounts.push(made.account.accountNumber);
      }
      // 18 payments: value times out of recording order (a bank that notifies late), three
      // amounts, six payers, two accounts.
      for (let i = 0; i < 18; i++) {
        const paidAt = new Date(start + ((i * 7) % 18) * MINUTE).toISOString();
        await h.services.collections.receive(
          notification(accounts[i % 2] as string, [150_000, 250_050, 99_900][i % 3] as number, paidAt, {
            payer: { name: PAYERS[i % PAYERS.length], accountNumber: "0123456789", bankName: "Example Bank" },
          }),
        );
      }
    });
    after(() => h?.close());

    async function signedIn() {
      const client = pageClient(h.app);
      const answer = await client.signIn("/dashboard", email, PASSWORD);
      assert.equal(answer.statusCode, 303);
      return client;
    }

    /** Every page of GET /transactions' answer for `filters`, as the domain gives it. */
    async function everyPage(filters: Record<string, string>): Promise<Transaction[]> {
      const all: Transaction[] = [];
      for (let page = 1; ; page++) {
        const listed = await h.services.collections.listTransactions(
          business,
          check(transactionQuery, { ...filters, page: `${page}`, limit: "5" }),
        );
        all.push(...listed.items);
        if (page >= listed.pagination.pages) return all;
      }
    }

    test("a search by part of the payer's name (any case, % taken literally) and by amount", async () => {
      const client = await signedIn();
      const ids = (body: string) =>
        [...body.matchAll(/href="\/dashboard\/transactions\/(txn_[0-9a-f]{32})"/g)].map((m) => m[1]);
      const byName = await client.get("/dashboard/transactions?payerName=ADA");
      assert.equal(byName.response.statusCode, 200);
      // "Ada Obi" and "ada lovelace", three payments each.
      assert.equal(ids(byName.response.body).length, 6);
      assert.match(byName.response.body, /Export these 6 as CSV/);
      const percent = await client.get(`/dashboard/transactions?payerName=${encodeURIComponent("0%")}`);
      assert.equal(ids(percent.response.body).length, 3, "only 100% Foods: the % is not a wildcard");
      const both = await client.get("/dashboard/transactions?payerName=ada&amount=1%2C500");
      const found = await h.services.collectionReads.search(business, {
        ...check(transactionQuery, { limit: "20" }),
        payerName: "ada",
        amount: 150_000,
      });
      assert.deepEqual(
        ids(both.response.body),
        found.items.map((t) => t.id),
      );
      assert.equal(found.items.length, 3, "Ada Obi's payments of NGN 1,500");
      for (const t of found.items) {
        assert.equal(t.amount, 150_000);
        assert.match(t.payer.name, /ada/i);
      }
    });

    test("a filter that cannot be read is refused beside its field, in the words of its label", async () => {
      const client = await signedIn();
      const refused = await client.get("/dashboard/transactions?amount=12abc&payerName=Ada");
      assert.equal(refused.response.statusCode, 400);
      assert.match(
        refused.response.body,
        /id="amount-error">Enter the amount in naira, like 1500 or 1500.50</,
      );
      assert.match(refused.response.body, /value="Ada"/, "the form keeps what was typed");
      const nul = await client.get("/dashboard/transactions?payerName=Ada%00");
      assert.equal(nul.response.statusCode, 400, "a NUL is refused, never sent to the database");
      assert.match(
        nul.response.body,
        /Payer&#39;s name contains a character no name has|Payer's name contains a character no name has/,
      );
      const unknown = await client.get("/dashboard/transactions?accountNumber=0000000000");
      assert.equal(unknown.response.statusCode, 200);
      assert.doesNotMatch(unknown.response.body, /Export these/);
    });

    test("the export walks every page of a filter in GET /transactions' order, a few rows a query", async () => {
      const from = new Date(start + 4 * MINUTE).toISOString();
      const to = new Date(start + 13 * MINUTE).toISOString();
      const filterSets: Record<string, string>[] = [
        {},
        { accountNumber: accounts[1] as string },
        { from, to },
        { accountNumber: accounts[0] as string, from },
        { timeField: "createdAt", to: new Date().toISOString() },
      ];
      for (const filters of filterSets) {
        const expected = (await everyPage(filters)).map((t) => t.id);
        assert.ok(expected.length > 4, "more than one batch");
        for (const batch of [1, 4, 500]) {
          const exported: string[] = [];
          const batches = await transactionsToExport(
            h.storage.db,
            business.businessId,
            check(transactionQuery, filters),
            batch,
          );
          for await (const rows of batches) {
            assert.ok(rows.length <= batch);
            exported.push(...rows.map((t) => t.id));
          }
          assert.deepEqual(exported, expected, JSON.stringify({ filters, batch }));
        }
      }
      // Values out of recording order: the value-time order is not the recording order.
      const byValue = (await everyPage({ from })).map((t) => t.id);
      const byRecording = (await everyPage({ timeField: "createdAt", from: new Date(0).toISOString() })).map(
        (t) => t.id,
      );
      assert.notDeepEqual(byValue, byRecording.slice(0, byValue.length));
    });

    test("the CSV over HTTP: a header, kobo and naira, UTC times, a formula made harmless, and a line in the audit", async () => {
      const client = await signedIn();
      const filters = { accountNumber: accounts[0] as string };
      const answer = await client.get(`/dashboard/transactions/export?${new URLSearchParams(filters)}`);
      assert.equal(answer.response.statusCode, 200);
      assert.match(String(answer.response.headers["content-type"]), /^text\/csv; charset=utf-8/);
      assert.match(
        String(answer.response.headers["content-disposition"]),
        /^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const rows = parse(answer.response.body, { columns: true }) as Record<string, string>[];
      const expected = await everyPage(filters);
      assert.deepEqual(
        rows.map((row) => row.id),
        expected.map((t) => t.id),
      );
      for (const [i, row] of rows.entries()) {
        const t = expected[i] as Transaction;
        assert.equal(Number(row.amount_kobo), t.amount);
        assert.equal(
          row.amount_naira,
          `${Math.trunc(t.amount / 100)}.${String(t.amount % 100).padStart(2, "0")}`,
        );
        assert.equal(Number(row.fee_kobo), t.fee);
        const charge = (kind: string) => t.charges.find((line) => line.kind === kind)?.amount ?? 0;
        assert.equal(Number(row.vat_kobo), charge("vat"), "each charge in its own column");
        assert.equal(Number(row.stamp_duty_kobo), charge("stamp_duty"));
        assert.equal(Number(row.balance_after_kobo), t.balanceAfter);
        assert.equal(row.paid_at_utc, t.paidAt);
        assert.match(row.paid_at_utc as string, /Z$/);
        assert.equal(row.account_number, t.accountNumber);
        const name = t.payer.name.startsWith("=") ? `'${t.payer.name}` : t.payer.name;
        assert.equal(row.payer_name, name, "a payer's name that a spreadsheet would run is quoted");
      }
      assert.ok(rows.some((row) => row.payer_name === "'=HYPERLINK(1)"));
      const activity = await h.services.users.activity(owner, 50);
      assert.ok(
        activity.some((entry) => entry.action === "transactions.exported" && entry.actorEmail === email),
      );
    });

    test("times in the business's time zone, named; the filter's minutes are that zone's; the CSV keeps UTC", async () => {
      const client = await signedIn();
      const all = await everyPage({});
      const paid = all[0] as Transaction;
      const list = await client.get("/dashboard/transactions");
      const wat = zonedTime(paid.paidAt, "Africa/Lagos");
      assert.match(wat, / WAT$/);
      assert.ok(list.response.body.includes(`${wat.slice(11)}</span>`), `the list shows ${wat}`);
      assert.match(list.response.body, /Paid from <span class="help">\(WAT\)<\/span>/);

      // Four minutes of value times, typed as Lagos's minutes, select what the API's UTC range does.
      const from = new Date(start + 4 * MINUTE).toISOString();
      const to = new Date(start + 7 * MINUTE + 59_999).toISOString();
      const expected = (await everyPage({ from, to })).map((t) => t.id);
      assert.ok(expected.length > 0);
      const typed = `from=${utcToZonedMinute(from, "Africa/Lagos")}&to=${utcToZonedMinute(to, "Africa/Lagos")}`;
      const ids = (body: string) =>
        [...body.matchAll(/href="\/dashboard\/transactions\/(txn_[0-9a-f]{32})"/g)].map((m) => m[1]);
      assert.deepEqual(ids((await client.get(`/dashboard/transactions?${typed}`)).response.body), expected);

      const { token } = await client.get("/dashboard/home");
      const refused = await client.post("/dashboard/time-zone", { _csrf: token ?? "", timeZone: "Lagos" });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /Time zone must be one from the list, like Africa\/Lagos/);
      const changed = await client.post("/dashboard/time-zone", {
        _csrf: token ?? "",
        timeZone: "asia/kolkata",
      });
      assert.equal(changed.statusCode, 303);
      const home = await client.get("/dashboard/home?done=time-zone");
      // This runtime lists India's zone as Asia/Calcutta; either name is the same zone.
      assert.match(
        home.response.body,
        /Times on these pages are in <strong>Asia\/(Kolkata|Calcutta)<\/strong>/,
      );
      assert.match(home.response.body, /The time zone is saved/);
      const shown = await client.get(`/dashboard/transactions/${paid.id}`);
      assert.ok(shown.response.body.includes(zonedTime(paid.paidAt, "Asia/Kolkata", { seconds: true })));
      // The same typed minutes are Kolkata's now: four and a half hours earlier, another range.
      assert.notDeepEqual(
        ids((await client.get(`/dashboard/transactions?${typed}`)).response.body),
        expected,
      );
      const csv = await client.get("/dashboard/transactions/export");
      const rows = parse(csv.response.body, { columns: true }) as Record<string, string>[];
      assert.equal(
        rows.find((row) => row.id === paid.id)?.paid_at_utc,
        paid.paidAt,
        "the export stays in UTC",
      );
      const security = await client.get("/dashboard/security");
      assert.match(security.response.body, /Time zone changed: Asia\/(Kolkata|Calcutta)/);
      assert.match(security.response.body, / IST<\/span>|GMT\+5:30<\/span>/);
      await h.services.profiles.setTimeZone(business.businessId, CLI, "Africa/Lagos");
    });

    test("a transaction's page: its balance after, its event and the event's delivery", async () => {
      const client = await signedIn();
      const [t] = await everyPage({});
      assert.ok(t);
      const shown = await client.get(`/dashboard/transactions/${t.id}`);
      assert.equal(shown.response.statusCode, 200);
      const event = await h.services.events.ofTransaction(business, t);
      assert.ok(event);
      assert.equal((event.data as { id: string }).id, t.id);
      assert.match(shown.response.body, new RegExp(`href="/dashboard/events/${event.id}"`));
      assert.match(shown.response.body, /Your balance after<\/dt><dd>NGN [\d,]+\.\d{2}</);
      assert.match(shown.response.body, /https:\/\/hooks\.ledgerfoods\.example\/vas/);
      assert.match(shown.response.body, /data-label="State">pending</);
    });

    // Last: it adds payments the tests above do not count.
    test("Show: held lists only the credits held now, not those accepted or returned (issue 46)", async () => {
      const client = await signedIn();
      const holding = await h.services.accounts.generatePermanent(business, CLI, {
        ...permanentInputOf({ email: `held.${dialect}@customers.example` }),
        allowedPayers: [{ name: "Ada Obi" }],
        onMismatch: "hold",
      });
      const refundable = SANDBOX_PAYEES.find((payee) => payee.outcome === "successful");
      assert.ok(refundable);
      const payer = { name: "Kemi Stranger", accountNumber: refundable.accountNumber, bankName: "Sandbox" };
      const held: Transaction[] = [];
      for (const amount of [11_000, 12_000, 13_000, 14_000]) {
        const { transaction } = await h.services.collections.receive(
          notification(holding.account.accountNumber, amount, new Date().toISOString(), {
            payer: { ...payer, bankCode: refundable.bankCode },
          }),
        );
        assert.equal(transaction.status, "held");
        held.push(transaction);
      }
      const [accepted, returned, ...still] = held as [Transaction, Transaction, Transaction, Transaction];
      await h.services.heldCredits.accept(business, CLI, accepted.id);
      await h.services.refunds.returnHeld(business, CLI, returned.id, { channel: "dashboard" });

      const ids = (body: string) =>
        [...body.matchAll(/href="\/dashboard\/transactions\/(txn_[0-9a-f]{32})"/g)].map((m) => m[1]);
      const shown = await client.get("/dashboard/transactions?status=held");
      assert.equal(shown.response.statusCode, 200);
      assert.deepEqual(ids(shown.response.body), still.map((t) => t.id).reverse());
      assert.match(shown.response.body, /<option value="held" selected>/);
      assert.match(shown.response.body, /Export these 2 as CSV/);
      // With the other filters: the held ones among a payer's, and none of an account without any.
      const byAmount = await client.get("/dashboard/transactions?status=held&amount=140");
      assert.deepEqual(ids(byAmount.response.body), [still[1]?.id]);
      const elsewhere = await client.get(`/dashboard/transactions?status=held&accountNumber=${accounts[0]}`);
      assert.deepEqual(ids(elsewhere.response.body), []);
      // Every transaction, as before: the decided ones too.
      const every = ids((await client.get("/dashboard/transactions")).response.body);
      for (const t of held) assert.ok(every.includes(t.id), t.id);
      const csv = await client.get("/dashboard/transactions/export?status=held");
      assert.equal(csv.response.statusCode, 200);
      const rows = parse(csv.response.body, { columns: true }) as Record<string, string>[];
      assert.deepEqual(
        rows.map((row) => [row.id, row.status]),
        still.map((t) => [t.id, "held"]).reverse(),
      );
      const refused = await client.get("/dashboard/transactions?status=lost");
      assert.equal(refused.response.statusCode, 400);
      assert.match(
        refused.response.body,
        /Show must be every transaction, the held ones or the declined ones/,
      );
    });

    test("Show: declined lists the payments refused at arrival, from their events (issue 46)", async () => {
      const client = await signedIn();
      const empty = await client.get("/dashboard/transactions?status=declined");
      assert.equal(empty.response.statusCode, 200);
      assert.match(empty.response.body, /No payment was declined\./);
      const guarded = await h.services.accounts.generatePermanent(business, CLI, {
        ...permanentInputOf({ email: `declines.${dialect}@customers.example` }),
        allowedPayers: [{ name: "Ada Obi" }],
      });
      const number = guarded.account.accountNumber;
      const sent = [];
      for (const amount of [12_345, 67_800]) {
        const stranger = notification(number, amount, new Date().toISOString(), {
          payer: { name: "Zainab Stranger", accountNumber: "0555555555", bankName: "Far Bank" },
        });
        await assert.rejects(h.services.collections.receive(stranger), { code: "PAYER_NOT_ALLOWED" });
        sent.push(stranger);
      }
      const events = await h.services.events.list(business, { page: 1, limit: 10, type: "payment.declined" });
      assert.equal(events.items.length, 2);
      const shown = await client.get("/dashboard/transactions?status=declined");
      assert.equal(shown.response.statusCode, 200);
      const body = shown.response.body;
      assert.match(body, /<option value="declined" selected>/);
      const rows = [
        ...body.matchAll(/<tr>\s*<td><a href="\/dashboard\/events\/(evt_[0-9a-f]{32})"[\s\S]*?<\/tr>/g),
      ];
      assert.deepEqual(
        rows.map((row) => row[1]),
        events.items.map((event) => event.id),
        "newest first, each linking to its event",
      );
      const [newest, oldest] = rows.map((row) => row[0]) as [string, string];
      for (const [row, notice] of [
        [newest, sent[1]],
        [oldest, sent[0]],
      ] as const) {
        assert.ok(row.includes(`<code>${notice?.sessionId}</code>`), row);
        assert.ok(row.includes(number), row);
        assert.ok(row.includes("Zainab Stranger"), row);
        assert.ok(row.includes("<code>PAYER_NOT_ALLOWED</code>"), row);
      }
      assert.match(newest, /NGN 678\.00/);
      assert.match(oldest, /NGN 123\.45/);
      assert.doesNotMatch(body, /Export these/, "declined payments are not transactions to export");
      // A page past the last is empty, as the events' pages are.
      const past = await client.get("/dashboard/transactions?status=declined&page=2");
      assert.match(past.response.body, /No payment was declined\./);
      assert.doesNotMatch(past.response.body, /Zainab Stranger/);
    });
  });

  describe(`a CSV export in a browser on ${dialect}`, { skip: skipWithoutBrowser }, () => {
    const suite = browserSuite({ dialect, env: { SIGN_IN_RATE_LIMIT_PER_MIN: "0" } });

    test("the CSV downloaded for a filter holds what GET /transactions answers for it, every page", async () => {
      const { h, browser, origin } = suite;
      const created = await h.createBusiness({ name: "Export Foods" });
      const business = { businessId: created.businessId, businessName: created.name };
      const ownerEmail = `owner.${dialect}@exportfoods.example`;
      await h.services.invitations.inviteOwner(business.businessId, ownerEmail);
      const invitation = await lastMail(
        { dir: h.dir, mailer: h.services.mailer },
        ownerEmail,
        /^Join Export Foods/,
      );
      await h.services.invitations.accept(
        new URL(linkIn(invitation, "http")).searchParams.get("token") ?? "",
        PASSWORD,
      );
      const numbers: string[] = [];
      for (const customer of ["one", "two"]) {
        const made = await h.services.accounts.generatePermanent(
          business,
          CLI,
          permanentInputOf({ email: `${customer}.${dialect}@exportfoods.example` }),
        );
        numbers.push(made.account.accountNumber);
      }
      for (let i = 0; i < 45; i++) {
        await h.services.collections.sandboxTransfer(business, {
          accountNumber: numbers[i % 3 === 0 ? 1 : 0] as string,
          amount: 10_000 + i,
          payerName: `Payer ${i}`,
        });
      }
      const { page } = await openRecordingPage(browser);
      await page.goto(`${origin}/dashboard/login`);
      await page.getByLabel("Email").fill(ownerEmail);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("link", { name: "Transactions" }).click();
      await page.getByLabel("Account number").fill(numbers[0] as string);
      await page.getByRole("button", { name: "Show" }).click();
      await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Oldest" }).click();
      const pager = page.getByRole("navigation", { name: "Pages" });
      assert.match(await pager.innerText(), /Page 2 of 2 \(30\)/);
      await pager.getByLabel("Go to page").fill("1");
      await pager.getByRole("button", { name: "Go" }).click();
      assert.match(await pager.innerText(), /Page 1 of 2 \(30\)/);
      assert.equal(new URL(page.url()).searchParams.get("accountNumber"), numbers[0], "the filter is kept");
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Export these 30 as CSV" }).click(),
      ]);
      const csv = await readFile(await download.path(), "utf8");
      const rows = parse(csv, { columns: true }) as Record<string, string>[];

      const fromApi: Record<string, unknown>[] = [];
      for (let p = 1; ; p++) {
        const answer = await h.request({
          method: "GET",
          url: `${API}/transactions?accountNumber=${numbers[0]}&page=${p}&limit=7`,
          as: created,
        });
        assert.equal(answer.statusCode, 200, answer.body);
        const body = answer.json() as { data: Record<string, unknown>[]; pagination: { pages: number } };
        fromApi.push(...body.data);
        if (p >= body.pagination.pages) break;
      }
      assert.equal(rows.length, 30);
      assert.deepEqual(
        rows.map((row) => [
          row.id,
          Number(row.amount_kobo),
          Number(row.fee_kobo),
          row.paid_at_utc,
          row.payer_name,
        ]),
        fromApi.map((t) => [t.id, t.amount, t.fee, t.paidAt, (t.payer as { name: string }).name]),
      );
    });
  });
}
