import assert from "node:assert/strict";
import { createPrivateKey, type KeyObject, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { VasApiError } from "../src/client/index.js";
import { logReport } from "../src/compose/jobs.js";
import { CLI } from "../src/core/actor.js";
import { lagosDate, lagosDayWindow } from "../src/core/lagos-time.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { statementPages } from "../src/providers/bank-statement.js";
import { embeddedStatement } from "../src/providers/virtual-bank-statement.js";
import type { ReconciliationReport } from "../src/reconciliation/report.js";
import { virtualBankStore } from "../src/storage/virtual-bank-store.js";
import { assertFailCode } from "./helpers/assertions.js";
import { type BankProcess, clientKeyFiles, freePort, startBankProcess } from "./helpers/bank-process.js";
import { runVas } from "./helpers/cli.js";
import { DIALECTS, databaseUrl } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  type Harness,
  permanentInputOf,
  type TestBusiness,
  verifyBusiness,
} from "./helpers/harness.js";
import { signedUpOwner } from "./helpers/members.js";
import { signedBankNotification } from "./helpers/notifications.js";
import { pageClient } from "./helpers/page-client.js";
import { listeningClient } from "./helpers/sdk.js";
import { type ServerProcess, startServerProcess } from "./helpers/server-process.js";
import { signedInOperator } from "./helpers/two-factor.js";

// Issue 27: reconciliation with the bank. The Virtual Bank runs as a process of its own and
// drops, forgets or is contradicted on demand; the service finds every credit by itself (a
// requery, the job in two server processes), and a day's report says where the two disagree.

const APP_ID = "vas-reconcile-app";

for (const dialect of DIALECTS) {
  describe(`reconciliation with the bank as its own process, on ${dialect}`, () => {
    let dir: string;
    let bank: BankProcess;
    let h: Harness;
    let ada: TestBusiness;
    let bola: TestBusiness;
    let adaAccount: string;
    let bankKey: KeyObject;
    let env: Record<string, string>;
    const masterKey = randomBytes(32);
    const today = lagosDate(Date.now());
    /** Payments credited by a requery, in the order they were paid: a day's report counts them recovered. */
    const requeried: string[] = [];

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "vas-reconcile-"));
      const keys = clientKeyFiles(dir);
      const port = await freePort();
      bank = await startBankProcess({
        dataDir: path.join(dir, "bank"),
        appId: APP_ID,
        clientPublicKeyFile: keys.publicKeyFile,
        notifyUrl: `http://127.0.0.1:${port}/api/v1/bank/notifications`,
        retryBaseMs: 20,
        maxAttempts: 2,
      });
      bankKey = createPrivateKey(readFileSync(path.join(dir, "bank", "bank.pem"), "utf8"));
      env = {
        PROVIDER: "http",
        BANK_URL: bank.url,
        BANK_APP_ID: APP_ID,
        BANK_PRIVATE_KEY_FILE: keys.privateKeyFile,
        BANK_PUBLIC_KEY_FILE: bank.publicKeyFile,
      };
      h = await createHarness({ dialect, masterKey, env });
      await h.app.listen({ port, host: "127.0.0.1" });
      ada = await h.createBusiness({ name: "Ada Foods" });
      bola = await h.createBusiness({ name: "Bola Stores" });
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ email: "payer@ada.example" }),
        as: ada,
      });
      assert.equal(generated.statusCode, 201, generated.body);
      adaAccount = generated.json().data.accountNumber;
    });

    after(async () => {
      await h?.close();
      if (bank) assert.equal(await bank.stop(), 0);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** A payment the bank takes and whose every notification is lost: abandoned, the money at the bank. */
    const abandonedPayment = async (amount: number, virtualAccountNo = adaAccount) => {
      await bank.setFaults({ dropNotifications: 1_000 });
      const paid = await bank.pay({ virtualAccountNo, amount, payerName: "Kemi Payer" });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      const orderNo = paid.body.data?.orderNo as string;
      assert.equal((await bank.settled(orderNo)).status, "abandoned");
      await bank.setFaults({ dropNotifications: 0 });
      return orderNo;
    };
    /** A payment the service was told of. */
    const notifiedPayment = async (amount: number) => {
      const paid = await bank.pay({ virtualAccountNo: adaAccount, amount });
      const orderNo = paid.body.data?.orderNo as string;
      assert.equal((await bank.settled(orderNo)).status, "acknowledged");
      return orderNo;
    };
    const requery = (as: TestBusiness, body: unknown) =>
      h.request({ url: `${API}/transactions/requery`, body, as });
    const events = async (sessionId: string) =>
      (
        await h.storage.db
          .selectFrom("events")
          .select("id")
          .where("type", "=", "payment.received")
          .where("data", "like", `%"sessionId":"${sessionId}"%`)
          .execute()
      ).length;
    const recorded = async (sessionId: string) =>
      (
        await h.storage.db
          .selectFrom("transactions")
          .select("id")
          .where("session_id", "=", sessionId)
          .execute()
      ).length;

    test("a payment whose every notification was dropped is found by a requery at once: once, with one event", async () => {
      const orderNo = await abandonedPayment(2_500_00);
      assert.equal(await recorded(orderNo), 0, "the bank gave up telling the service");

      assertFailCode(await requery(bola, { sessionId: orderNo }), 404, "TRANSACTION_NOT_FOUND");
      assertFailCode(await requery(ada, { sessionId: "NEVER-PAID-1" }), 404, "TRANSACTION_NOT_FOUND");
      assertFailCode(await requery(ada, { sessionId: "not a session id" }), 400, "VALIDATION_FAILED");
      assertFailCode(await requery(ada, {}), 400, "VALIDATION_FAILED");

      const found = await requery(ada, { sessionId: orderNo });
      assert.equal(found.statusCode, 201, found.body);
      requeried.push(orderNo);
      const transaction = found.json().data;
      assert.equal(transaction.sessionId, orderNo);
      assert.equal(transaction.amount, 2_500_00);
      assert.equal(transaction.accountNumber, adaAccount);
      assert.equal(transaction.payer.name, "Kemi Payer");

      const again = await requery(ada, { sessionId: orderNo });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().data.id, transaction.id);
      // Recorded once, and found by another business only as nothing.
      assertFailCode(await requery(bola, { sessionId: orderNo }), 404, "TRANSACTION_NOT_FOUND");
      assert.equal(await recorded(orderNo), 1);
      assert.equal(await events(orderNo), 1, "one payment.received");
    });

    test("the SDK's transactions.requery: recovered now, then found recorded; nowhere is a VasApiError 404", async () => {
      const orderNo = await abandonedPayment(150_00);
      const client = await listeningClient(h, ada);
      const found = await client.transactions.requery(orderNo);
      assert.equal(found.recovered, true);
      requeried.push(orderNo);
      assert.equal(found.transaction.sessionId, orderNo);
      const again = await client.transactions.requery(orderNo);
      assert.deepEqual(again, { transaction: found.transaction, recovered: false });
      await assert.rejects(client.transactions.requery("NOWHERE-1"), (error: VasApiError) => {
        assert.equal(error.status, 404);
        assert.equal(error.code, "TRANSACTION_NOT_FOUND");
        return true;
      });
      const listed: string[] = [];
      for await (const transaction of client.transactions({ sessionId: orderNo }))
        listed.push(transaction.id);
      assert.deepEqual(listed, [found.transaction.id]);
    });

    test("the day's report: recovered, missing at the bank, a kept conflict, sums that agree with GET /transactions; stored and never changed", async () => {
      const forgotten = await notifiedPayment(1_000_00);
      await bank.setFaults({ forgetTransfers: [forgotten] });
      const contradicted = await notifiedPayment(3_000_00);
      const conflict = await h.app.inject({
        method: "POST",
        url: "/api/v1/bank/notifications",
        payload: signedBankNotification(APP_ID, adaAccount, bankKey, {
          orderNo: contradicted,
          orderAmount: 30_00,
        }),
      });
      assert.equal(conflict.statusCode, 409, conflict.body);
      const dropped = await abandonedPayment(700_00);

      const cliEnv = {
        ...env,
        DATABASE_URL: databaseUrl(h.database),
        DATA_DIR: h.dir,
        VAS_MASTER_KEY: masterKey.toString("hex"),
        NODE_ENV: "test",
      };
      const run = await runVas(["reconcile", "--date", today, "--json"], cliEnv);
      assert.equal(run.code, 3, `a discrepancy exits 3: ${run.stderr}`);
      const report = JSON.parse(run.stdout) as ReconciliationReport;
      assert.equal(report.date, today);
      assert.deepEqual(
        report.recovered.items.map((item) => item.sessionId),
        [...requeried, dropped],
        "those requeried earlier, and the dropped payment, credited now",
      );
      assert.equal(
        report.recovered.items.at(-1)?.note,
        "its notification never came: credited now, by this report, from the bank's statement",
      );
      assert.equal(await recorded(dropped), 1);
      assert.equal(await events(dropped), 1);
      assert.deepEqual(
        report.missingAtBank.items.map((item) => [item.sessionId, item.ledger?.amount, item.bank]),
        [[forgotten, 1_000_00, null]],
      );
      assert.equal(report.missingAtBank.amount, 1_000_00);
      assert.deepEqual(
        report.mismatched.items.map((item) => [item.sessionId, item.ledger?.amount, item.bank?.amount]),
        [[contradicted, 3_000_00, 3_000_00]],
        "the statement agrees with the ledger; the kept notification is the discrepancy",
      );
      assert.match(
        report.mismatched.items[0]?.note ?? "",
        /a notification with other details \(NGN 30\.00 into \d{10}\)/,
      );
      assert.equal(report.notCredited.count, 0);
      assert.equal(report.payoutStatusMismatch.count, 0);
      assert.equal(report.discrepancies, 2);

      // The day's transactions as GET /transactions shows them, across both businesses.
      const { from } = lagosDayWindow(today);
      let listed = 0;
      let listedAmount = 0;
      for (const business of [ada, bola]) {
        const page = await h.request({ url: `${API}/transactions?from=${from}&limit=100`, as: business });
        assert.equal(page.statusCode, 200, page.body);
        for (const item of page.json().data as Array<{ amount: number }>) {
          listed++;
          listedAmount += item.amount;
        }
      }
      assert.deepEqual(report.ledgerTotal, { count: listed, amount: listedAmount });
      // Each credit in one category: the contradicted one is mismatched, not matched as well.
      const accounted = [report.matched, report.recovered, report.missingAtBank, report.mismatched];
      assert.deepEqual(
        accounted.reduce(
          (sum, tally) => ({ count: sum.count + tally.count, amount: sum.amount + tally.amount }),
          {
            count: 0,
            amount: 0,
          },
        ),
        { count: listed, amount: listedAmount },
        "every transaction of the day matched, recovered, missing at the bank or mismatched, once",
      );
      assert.equal(
        report.bankTotal.amount,
        listedAmount - 1_000_00,
        "the bank's statement lacks the forgotten one",
      );

      // Human output, and a second run stored beside the first, which stays as it was.
      const text = await runVas(["reconcile", "--date", today], cliEnv);
      assert.equal(text.code, 3);
      assert.match(text.stdout, /missing at the bank\s+1\s+NGN 1,000\.00/);
      const reports = await h.services.reconciliation.reports({ date: today });
      assert.equal(reports.length, 2);
      const first = await h.services.reconciliation.report(report.id);
      assert.deepEqual(first?.missingAtBank, report.missingAtBank);
      await assert.rejects(
        sql`update reconciliation_reports set discrepancies = 0 where id = ${report.id}`.execute(
          h.storage.db,
        ),
        /append-only|refused/i,
      );
      assert.equal((await runVas(["reconcile", "--date", "2026-02-30"], cliEnv)).code, 2);
      await bank.setFaults({ forgetTransfers: [] });
    });

    test("payouts: a final status the ledger never heard is applied, one the bank forgot is a mismatch; a credit the rules refuse is not credited", async () => {
      const forAda = { businessId: ada.businessId, businessName: ada.name };
      await notifiedPayment(50_000_00);
      await h.services.payoutSettings.setApiPayouts(ada.businessId, true);
      const payee = SANDBOX_PAYEES.find((candidate) => candidate.outcome === "successful");
      assert.ok(payee);
      const payout = async () => {
        const made = await h.services.payouts.create(forAda, {
          amount: 1_000_00,
          bankCode: payee.bankCode,
          accountNumber: payee.accountNumber,
          narration: "Supplier",
        });
        await h.services.payoutTracker.run();
        return made.id;
      };
      const status = async (id: string) => (await h.services.payoutListing.find(id)).status;
      const until = async (check: () => Promise<boolean>, what: string) => {
        for (let i = 0; !(await check()); i++) {
          assert.ok(i < 200, what);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      };
      // Paid, and then forgotten by the bank.
      const forgottenPayout = await payout();
      await until(
        async () => (await status(forgottenPayout)) === "successful",
        "the bank's notification came",
      );
      await bank.setFaults({ forgetTransfers: [forgottenPayout] });
      // Paid at the bank, every status notification lost: the ledger still says pending.
      await bank.setFaults({ dropNotifications: 1_000 });
      const unheard = await payout();
      await until(
        async () =>
          (await bank.transfersOut()).some((t) => t.reference === unheard && t.outcome === "successful"),
        "the bank took it",
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await status(unheard), "pending");
      // A payment into an account deactivated before its lost notification is found.
      const second = await h.request({
        url: `${API}/account/generate`,
        body: customer({ email: "two@ada.example" }),
        as: ada,
      });
      const secondAccount = second.json().data.accountNumber as string;
      const refusedOrder = await abandonedPayment(800_00, secondAccount);
      await bank.setFaults({ dropNotifications: 1_000 });
      const deactivated = await h.request({
        url: `${API}/account/${secondAccount}/deactivate`,
        body: {},
        as: ada,
      });
      assert.equal(deactivated.statusCode, 200, deactivated.body);
      assertFailCode(await requery(ada, { sessionId: refusedOrder }), 422, "ACCOUNT_DEACTIVATED");

      const report = await h.services.reconciliation.reconcile(today, "manual");
      assert.equal(await status(unheard), "successful", "the bank's final status, applied");
      assert.deepEqual(
        report.payoutStatusMismatch.items.map((item) => [item.payoutId, item.ledgerStatus, item.bankStatus]),
        [[forgottenPayout, "successful", null]],
      );
      assert.ok(report.payoutsMatched.count >= 1);
      assert.deepEqual(
        report.notCredited.items.map((item) => [item.sessionId, item.bank?.amount]),
        [[refusedOrder, 800_00]],
      );
      assert.match(report.notCredited.items[0]?.note ?? "", /ACCOUNT_DEACTIVATED/);
      assert.equal(await recorded(refusedOrder), 0);
      await bank.setFaults({ dropNotifications: 0, forgetTransfers: [] });
    });

    test("the dashboard's Find a payment credits one the bank has; the console lists the reports, each discrepancy side by side, under a banner", async () => {
      const password = "correct horse battery staple 42";
      const user = await signedUpOwner(h.services, {
        businessName: "Cara Crafts",
        email: `owner.${dialect}@cara.example`,
        password,
      });
      const cara = { businessId: user.businessId as string, businessName: "Cara Crafts" };
      await verifyBusiness(h.services, cara.businessId);
      const { account } = await h.services.accounts.generatePermanent(cara, CLI, permanentInputOf());
      const orderNo = await abandonedPayment(4_200_00, account.accountNumber);

      const owner = pageClient(h.app);
      const login = await owner.get("/dashboard/login");
      const signedIn = await owner.post("/dashboard/login", {
        _csrf: login.token ?? "",
        email: `owner.${dialect}@cara.example`,
        password,
      });
      assert.equal(signedIn.statusCode, 303);
      const list = await owner.get("/dashboard/transactions");
      assert.match(list.response.body, /Find a payment/);
      const missing = await owner.post("/dashboard/transactions/find", {
        _csrf: list.token ?? "",
        sessionId: "NOT-A-PAYMENT-9",
      });
      assert.equal(missing.statusCode, 404);
      assert.match(missing.body, /id="find-error">No payment with session id NOT-A-PAYMENT-9/);
      assert.match(missing.body, /value="NOT-A-PAYMENT-9"/, "the form keeps what was typed");
      const found = await owner.post("/dashboard/transactions/find", {
        _csrf: list.token ?? "",
        sessionId: orderNo,
      });
      assert.equal(found.statusCode, 303);
      const location = String(found.headers.location);
      assert.match(location, /^\/dashboard\/transactions\/txn_[0-9a-f]{32}\?found=recovered$/);
      const shown = await owner.get(location);
      assert.match(shown.response.body, /Found at the bank and credited now/);
      assert.match(shown.response.body, /NGN 4,200\.00/);
      assert.equal(await events(orderNo), 1);
      const again = await owner.post("/dashboard/transactions/find", {
        _csrf: list.token ?? "",
        sessionId: orderNo,
      });
      assert.match(String(again.headers.location), /\?found=recorded$/);

      const { client: operator } = await signedInOperator(
        h.services,
        h.app,
        `ops.${dialect}@vas.example`,
        password,
      );
      const reports = await operator.get("/admin/reconciliation");
      assert.equal(reports.response.statusCode, 200);
      // Today's reports found the kept conflict: every console page carries the banner.
      for (const url of ["/admin/reconciliation", "/admin/businesses", "/admin/payouts"]) {
        const body = (await operator.get(url)).response.body;
        assert.match(body, /Reconciliation found discrepancies with the bank/, url);
      }
      const refused = await operator.post("/admin/reconciliation", {
        _csrf: reports.token ?? "",
        date: "2026-13-01",
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /Date must be a day/);
      const run = await operator.post("/admin/reconciliation", { _csrf: reports.token ?? "", date: today });
      assert.equal(run.statusCode, 303);
      const report = await operator.get(String(run.headers.location));
      assert.equal(report.response.statusCode, 200);
      assert.match(report.response.body, /Mismatched: 1, NGN 3,000\.00/);
      assert.match(report.response.body, /NGN 3,000\.00\s+into \d{10}/, "the ledger's side");
      assert.match(report.response.body, /NGN 30\.00 into \d{10}/, "the kept notification");
      assert.equal(
        (await operator.get("/admin/reconciliation/rcn_00000000000000000000000000000000")).response
          .statusCode,
        404,
      );
      // A business's user is not an operator.
      assert.equal((await owner.get("/admin/reconciliation")).response.statusCode, 303);
    });

    test("two service processes, each running the job, recover every dropped payment once, each with one event", async () => {
      const dropped: string[] = [];
      for (const amount of [100_00, 200_00, 300_00, 400_00]) dropped.push(await abandonedPayment(amount));
      const servers: ServerProcess[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          servers.push(
            await startServerProcess({
              ...env,
              DATABASE_URL: databaseUrl(h.database),
              DATA_DIR: path.join(dir, `server-${i}`),
              VAS_MASTER_KEY: masterKey.toString("hex"),
              RECONCILE_INTERVAL_SECONDS: "1",
            }),
          );
        }
        const deadline = Date.now() + 20_000;
        for (const sessionId of dropped) {
          while ((await recorded(sessionId)) === 0) {
            assert.ok(Date.now() < deadline, `${sessionId} recovered within the interval`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
        for (const sessionId of dropped) {
          assert.equal(await recorded(sessionId), 1);
          assert.equal(await events(sessionId), 1, `one payment.received for ${sessionId}`);
        }
        // Let a few more passes run: nothing is credited twice, and each was recovered by one process.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        const recoveries = servers
          .map((server) => server.output())
          .join("\n")
          .split("\n")
          .filter((line) => line.includes("payment recovered from the bank's statement"));
        assert.equal(recoveries.length, dropped.length, recoveries.join("\n"));
        for (const sessionId of dropped) assert.equal(await recorded(sessionId), 1);
        // The alarm: today's newest report still has the kept conflict; the recoveries are counted.
        const scraped = await Promise.all(
          servers.map(async (server) => (await fetch(`${server.url}/metrics`)).text()),
        );
        for (const metrics of scraped) {
          assert.match(metrics, /vas_reconciliation_discrepancies\{category="mismatched"\} 1\b/);
          assert.match(metrics, /vas_reconciliation_discrepancies\{category="missingAtBank"\} 0\b/);
        }
        const recoveredTotal = scraped
          .map((metrics) => Number(/vas_reconciliation_recovered_total (\d+)/.exec(metrics)?.[1] ?? "0"))
          .reduce((sum, count) => sum + count, 0);
        assert.equal(recoveredTotal, dropped.length);
      } finally {
        for (const server of servers) assert.equal(await server.stop(), 0);
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`the reconcile job's days, on ${dialect} (the embedded bank, a clock of the test's)`, () => {
    test("the embedded bank's statement pages the service's own tables in order, ties and all", async () => {
      const now = Date.parse("2026-03-10T10:00:00.000Z");
      const h = await createHarness({ dialect, now: () => now });
      try {
        const business = await h.createBusiness({ name: "Pages Ltd" });
        const forBusiness = { businessId: business.businessId, businessName: business.name };
        const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
        const accountNumber = generated.json().data.accountNumber;
        const sessions: string[] = [];
        for (const amount of [3_000_00, 2_000_00, 1_000_00]) {
          const paid = await h.request({
            url: `${API}/sandbox/transfers`,
            body: { accountNumber, amount },
            as: business,
          });
          sessions.push(paid.json().data.sessionId);
        }
        await h.services.payoutSettings.setApiPayouts(business.businessId, true);
        const payee = SANDBOX_PAYEES.find((candidate) => candidate.outcome === "successful");
        assert.ok(payee);
        const references: string[] = [];
        for (let i = 0; i < 2; i++) {
          const payout = await h.services.payouts.create(forBusiness, {
            amount: 100_00,
            bankCode: payee.bankCode,
            accountNumber: payee.accountNumber,
            narration: `Payout ${i}`,
          });
          references.push(payout.id);
        }
        await h.services.payoutTracker.run();
        const statement = embeddedStatement(virtualBankStore(h.storage.db), (record) => ({
          reference: record.reference,
          status: "pending",
          reason: null,
          sessionId: null,
          code: "09",
        }));
        const window = { from: now - 60_000, to: now + 60_000 };
        for (const size of [1, 2, 4]) {
          const read: string[] = [];
          for await (const page of statementPages(statement, window, size)) {
            assert.ok(page.credits.length + page.debits.length <= size);
            read.push(...page.credits.map((c) => c.sessionId), ...page.debits.map((d) => d.reference));
          }
          // One instant: credits by session id, then transfers out by reference.
          assert.deepEqual(read, [...[...sessions].sort(), ...[...references].sort()], `pages of ${size}`);
        }
      } finally {
        await h.close();
      }
    });

    test("each day is reported once after it has ended, days missed are caught up, a pass that finds the job held does nothing", async () => {
      // 23:30 in Lagos on 10 March.
      let now = Date.parse("2026-03-10T22:30:00.000Z");
      const h = await createHarness({ dialect, now: () => now });
      try {
        const business = await h.createBusiness({ name: "Days Ltd" });
        const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
        const accountNumber = generated.json().data.accountNumber;
        const paid = await h.request({
          url: `${API}/sandbox/transfers`,
          body: { accountNumber, amount: 5_000_00 },
          as: business,
        });
        assert.equal(paid.statusCode, 201, paid.body);
        const { reconciliation } = h.services;
        const days = (pass: { reports: ReconciliationReport[] }) => pass.reports.map((report) => report.date);

        // The first pass reports the day before (nothing happened then).
        assert.deepEqual(days(await reconciliation.runPass()), ["2026-03-09"]);
        assert.deepEqual(days(await reconciliation.runPass()), [], "not again");
        // 00:05 on the 11th: the 10th is over, but not for the overlap yet.
        now = Date.parse("2026-03-10T23:05:00.000Z");
        assert.deepEqual(days(await reconciliation.runPass()), []);
        now = Date.parse("2026-03-10T23:15:00.000Z");
        const pass = await reconciliation.runPass();
        assert.deepEqual(days(pass), ["2026-03-10"]);
        const [tenth] = pass.reports;
        assert.deepEqual(
          tenth?.matched,
          { count: 1, amount: 5_000_00 },
          "the embedded bank's credit matched",
        );
        assert.equal(tenth?.discrepancies, 0);
        assert.deepEqual(pass.recovered, []);
        // Stopped for three days: the days in between are reported on the next pass, in order.
        now += 3 * 24 * 60 * 60_000;
        assert.deepEqual(days(await reconciliation.runPass()), ["2026-03-11", "2026-03-12", "2026-03-13"]);
        // Another process holding the job: this one's pass does nothing.
        now += 24 * 60 * 60_000;
        await h.storage.db
          .updateTable("reconciliation_state")
          .set({ claimed_by: "proc_other", claimed_until: new Date(now + 60_000).toISOString() })
          .execute();
        const held = await reconciliation.runPass();
        assert.equal(held.ran, false);
        assert.deepEqual(days(held), []);
        // Its claim expires (the process died): this one takes the job over.
        now += 2 * 60_000;
        assert.deepEqual(days(await reconciliation.runPass()), ["2026-03-14"]);
        assert.equal((await reconciliation.reports()).length, 6);
        // The alarm in the log: an error line for a report with a discrepancy, info otherwise.
        const lines: Array<{ level: string; details: Record<string, unknown>; message: string }> = [];
        const log = {
          info: (details: Record<string, unknown>, message: string) =>
            lines.push({ level: "info", details, message }),
          error: (details: Record<string, unknown>, message: string) =>
            lines.push({ level: "error", details, message }),
        } as unknown as Parameters<typeof logReport>[0];
        const [clean] = await reconciliation.reports({ limit: 1 });
        assert.ok(clean);
        logReport(log, clean);
        logReport(log, { ...clean, mismatched: { count: 1, amount: 5_00, items: [] }, discrepancies: 1 });
        assert.deepEqual(
          lines.map((line) => [line.level, line.details.code, line.details.mismatched]),
          [
            ["info", undefined, 0],
            ["error", "RECONCILIATION_DISCREPANCY", 1],
          ],
        );
      } finally {
        await h.close();
      }
    });
  });
}
