import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CompiledQuery, sql } from "kysely";
import { AppError } from "../src/errors.js";
import { ledgerAccountId } from "../src/ledger/kinds.js";
import { balanceAtQuery } from "../src/storage/ledger-repository.js";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { notification as makeNotification } from "./helpers/notifications.js";

// Issue 17 over the real services on both databases: conflicts kept, counted and logged; value
// time against recording time; balances at an instant; the requery by session id; a clean
// `vas ledger verify` after all of it. Policies: amount-policies.test.ts; tampering:
// ledger-verify.test.ts.

const MINUTE = 60_000;
const START = Date.parse("2026-05-01T08:00:00.000Z");
let clock = START;
const now = () => clock;
const iso = (ms: number) => new Date(ms).toISOString();

const notification = (accountNumber: string, amount: number, overrides: Record<string, unknown> = {}) =>
  makeNotification(accountNumber, amount, iso(clock), overrides);

for (const dialect of DIALECTS) {
  describe(`ledger proofs on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    const logs: Array<Record<string, unknown>> = [];
    let h: Harness;
    let business: TestBusiness;
    let other: TestBusiness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      clock = START;
      h = await createHarness({
        dialect,
        masterKey,
        now,
        logStream: { write: (line: string) => logs.push(JSON.parse(line)) },
      });
      business = await h.createBusiness({ name: "Proof Ltd" });
      other = await h.createBusiness({ name: "Other Ltd" });
      env = cliEnv(h, masterKey);
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    const permanent = async (as = business) => {
      const response = await h.request({ url: `${API}/account/generate`, body: customer(), as });
      assert.ok(response.statusCode < 300, response.body);
      return response.json().data.accountNumber as string;
    };
    const receive = (body: ReturnType<typeof notification>) => h.services.collections.receive(body);
    const get = async (url: string, as = business) => {
      const response = await h.request({ url: `${API}${url}`, as });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };

    test("a session id again with other content is refused, kept, counted and logged; the first stands", async () => {
      const number = await permanent();
      const first = notification(number, 250_000);
      const recorded = await receive(first);
      assert.equal(recorded.payment, null, "no expected amount, no variance");
      assert.equal((await receive(first)).duplicate, true, "the same content again is a duplicate");
      const conflicts = [
        { ...first, amount: 250_001 },
        { ...first, amount: 250_001 },
        { ...first, accountNumber: await permanent() },
        { ...first, currency: "USD" },
      ];
      for (const conflicting of conflicts) {
        const refusal = await receive(conflicting).catch((error: unknown) => error);
        assert.ok(refusal instanceof AppError, String(refusal));
        assert.equal(refusal.code, "TRANSFER_CONFLICT");
        assert.equal(refusal.statusCode, 409);
      }
      const requery = await get(`/transactions?sessionId=${first.sessionId}`);
      assert.deepEqual(requery.data, [recorded.transaction], "the first recording stands");

      const listed = await runVas(["ledger", "conflicts", "--json", "--business", business.businessId], env);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
      assert.equal(rows.length, 3, "one row per distinct content");
      const byAmount = rows.find((row) => (row.refused as { amount: number }).amount === 250_001);
      assert.equal(byAmount?.attempts, 2);
      for (const row of rows) {
        assert.equal(row.sessionId, first.sessionId);
        assert.deepEqual(row.recorded, {
          transactionId: recorded.transaction.id,
          accountNumber: number,
          amount: 250_000,
          currency: "NGN",
        });
      }
      const table = await runVas(["ledger", "conflicts"], env);
      assert.match(
        table.stdout,
        new RegExp(`${first.sessionId}.*${number} 250001 NGN.*${number} 250000 NGN`),
      );
      const none = await runVas(["ledger", "conflicts", "--business", other.businessId], env);
      assert.equal(none.stdout, "(none)\n");
      assert.equal((await runVas(["ledger", "conflicts", "--limit", "0"], env)).code, 2);

      const metrics = await h.app.inject({ method: "GET", url: "/metrics" });
      assert.match(metrics.body, /^vas_transfer_conflicts_total 4$/m);
      const logged = logs.filter((line) => line.code === "TRANSFER_CONFLICT");
      assert.equal(logged.length, 4);
      assert.ok(
        logged.every((line) => line.level === 50),
        "logged at error level",
      );
      assert.equal((logged[0]?.conflict as { sessionId?: string } | undefined)?.sessionId, first.sessionId);
    });

    test("from/to bound the value time by default, the recording time on request", async () => {
      const lister = await h.createBusiness({ name: "Late Notices" });
      const number = await permanent(lister);
      clock = START + 60 * MINUTE;
      // The bank tells of a payment made 50 minutes earlier after two made just now.
      const fresh1 = await receive(notification(number, 1_000));
      clock += MINUTE;
      const fresh2 = await receive(notification(number, 2_000));
      clock += MINUTE;
      const late = await receive(notification(number, 3_000, { paidAt: iso(clock - 50 * MINUTE) }));
      const ids = (page: { data: Array<{ id: string }> }) => page.data.map((t) => t.id);

      const earlyWindow = `from=${iso(START)}&to=${iso(START + 30 * MINUTE)}`;
      const byValue = await get(`/transactions?${earlyWindow}`, lister);
      assert.deepEqual(ids(byValue), [late.transaction.id]);
      assert.equal(byValue.pagination.total, 1);
      const byRecording = await get(`/transactions?${earlyWindow}&timeField=createdAt`, lister);
      assert.deepEqual(ids(byRecording), []);

      const all = `from=${iso(START)}&to=${iso(clock)}`;
      const latestPaidFirst = await get(`/transactions?${all}&limit=2`, lister);
      assert.deepEqual(ids(latestPaidFirst), [fresh2.transaction.id, fresh1.transaction.id]);
      assert.deepEqual(latestPaidFirst.pagination, { page: 1, limit: 2, total: 3, pages: 2 });
      const second = await get(`/transactions?${all}&limit=2&page=2`, lister);
      assert.deepEqual(ids(second), [late.transaction.id]);
      const newestRecordedFirst = await get(`/transactions?${all}&timeField=createdAt`, lister);
      assert.deepEqual(
        ids(newestRecordedFirst),
        [late, fresh2, fresh1].map((t) => t.transaction.id),
      );
      const ofAccount = await get(
        `/transactions?accountNumber=${number}&to=${iso(START + 30 * MINUTE)}`,
        lister,
      );
      assert.deepEqual(ids(ofAccount), [late.transaction.id]);

      assertValidation(
        await h.request({ url: `${API}/transactions?timeField=valueAt`, as: lister }),
        "timeField must be paidAt or createdAt",
      );
      assertValidation(
        await h.request({ url: `${API}/transactions?timeField=paidAt&timeField=createdAt`, as: lister }),
        "timeField must be given once",
      );
    });

    test("GET /balance?at= answers the balance as it stood then", async () => {
      const payee = await h.createBusiness({ name: "Point In Time" });
      await h.services.collections.setFee(payee.businessId, { basisPoints: 100, capKobo: null });
      const number = await permanent(payee);
      const times: number[] = [];
      for (const amount of [10_000, 20_000, 40_000]) {
        clock += 10 * MINUTE;
        times.push(clock);
        await receive(notification(number, amount));
      }
      const at = async (instant: number) => (await get(`/balance?at=${iso(instant)}`, payee)).data;
      const zero = {
        available: 0,
        pending: 0,
        held: 0,
        totalReceived: 0,
        totalPaidOut: 0,
        totalFees: 0,
        totalVat: 0,
        totalStampDuty: 0,
        currency: "NGN",
      };
      assert.deepEqual(await at((times[0] as number) - 1), zero);
      assert.deepEqual(await at(times[0] as number), {
        ...zero,
        available: 9_900,
        totalReceived: 10_000,
        totalPaidOut: 0,
        totalFees: 100,
        totalVat: 0,
        totalStampDuty: 0,
      });
      assert.deepEqual(await at((times[1] as number) + MINUTE), {
        ...zero,
        available: 29_700,
        totalReceived: 30_000,
        totalPaidOut: 0,
        totalFees: 300,
        totalVat: 0,
        totalStampDuty: 0,
      });
      const current = (await get("/balance", payee)).data;
      assert.deepEqual(await at(clock + 365 * 24 * 60 * MINUTE), current);
      assert.equal(current.totalReceived, 70_000);
      const statement = (await get("/transactions?timeField=createdAt", payee)).data;
      assert.deepEqual(
        statement.map((t: { balanceAfter: number }) => t.balanceAfter),
        [69_300, 29_700, 9_900],
        "each transaction carries the available balance after it",
      );
      assertValidation(
        await h.request({ url: `${API}/balance?at=yesterday`, as: payee }),
        "at must be an ISO 8601 date-time with a zone, like 2026-01-31T23:00:00Z",
      );
    });

    test("the balance at an instant is one index lookup, never a sum over history", async () => {
      const busy = await h.createBusiness({ name: "Busy Ltd" });
      const number = await permanent(busy);
      for (let i = 0; i < 300; i++) {
        clock += 1_000;
        await receive(notification(number, 100 + i));
      }
      await sql`analyze`.execute(h.storage.db);
      const query = balanceAtQuery(
        h.storage.db,
        ledgerAccountId(busy.businessId, "available"),
        iso(clock - 100_000),
      ).compile();
      const explain = dialect === "sqlite" ? "explain query plan " : "explain ";
      const plan = JSON.stringify(
        (await h.storage.db.executeQuery(CompiledQuery.raw(explain + query.sql, [...query.parameters]))).rows,
      );
      if (dialect === "sqlite") {
        assert.match(plan, /SEARCH ledger_entries USING (COVERING )?INDEX ledger_entries_time_idx/, plan);
        assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
      } else {
        assert.match(plan, /Index Scan Backward using ledger_entries_time_idx/, plan);
        assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
      }
    });

    test("a customer's bank reference finds the payment, for its business only", async () => {
      const number = await permanent();
      const paid = await receive(notification(number, 7_700));
      const { sessionId } = paid.transaction;
      const found = await get(`/transactions?sessionId=${sessionId}`);
      assert.deepEqual(found.data, [paid.transaction]);
      assert.deepEqual(found.pagination, { page: 1, limit: 10, total: 1, pages: 1 });
      assert.deepEqual((await get(`/transactions?sessionId=${sessionId}`, other)).data, []);
      const elsewhere = await permanent();
      assert.deepEqual(
        (await get(`/transactions?sessionId=${sessionId}&accountNumber=${elsewhere}`)).data,
        [],
      );
      assert.deepEqual((await get(`/transactions?sessionId=${sessionId}&page=2`)).data, []);
      assert.deepEqual((await get("/transactions?sessionId=no-such-session")).pagination.total, 0);
      assertValidation(
        await h.request({ url: `${API}/transactions?sessionId=${"x".repeat(101)}`, as: business }),
        "sessionId must be 1 to 100 of A-Z a-z 0-9 . _ : -",
      );
      assertFailCode(
        await h.request({
          url: `${API}/transactions?sessionId=${sessionId}&accountNumber=0000000000`,
          as: business,
        }),
        404,
        "ACCOUNT_NOT_FOUND",
      );
    });

    test("vas ledger verify passes on the whole ledger and on one business", async () => {
      const whole = await runVas(["ledger", "verify"], env);
      assert.equal(whole.code, 0, whole.stdout + whole.stderr);
      assert.match(
        whole.stdout,
        /^Verified the ledger: \d+ ledger accounts, \d+ entries, \d+ transactions\.\nNo drift\.\n$/,
      );
      const one = await runVas(["ledger", "verify", "--business", business.businessId, "--json"], env);
      assert.equal(one.code, 0, one.stderr);
      const report = JSON.parse(one.stdout);
      assert.equal(
        report.ledgerAccounts,
        6,
        "available, held, revenue, settlement and the two charges' accounts",
      );
      assert.ok(report.entries > 0 && report.transactions > 0, one.stdout);
      assert.deepEqual(report.drifts, []);
      assert.equal((await runVas(["ledger", "verify", "--business", "nope"], env)).code, 2);
    });
  });
}
