import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { DATABASE_KINDS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";

// Collections end to end over HTTP: the acceptance rules at the exact instant of expiry (the
// clock is injected), single-use expected amounts, retired and deactivated numbers, fees, the
// read APIs and their scoping. Every refusal leaves nothing behind: the ledger is checked after.

const MINUTE = 60_000;
let clock = Date.parse("2026-03-01T09:00:00.000Z");
const now = () => clock;

for (const dialect of DATABASE_KINDS) {
  describe(`collections on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let other: TestBusiness;

    before(async () => {
      h = await createHarness({ dialect, now, env: { MAX_TRANSFER_KOBO: "5000000" } });
      business = await h.createBusiness({ name: "Collector" });
      other = await h.createBusiness({ name: "Someone Else" });
    });
    after(async () => {
      await assertLedgerInvariants(h.storage.db);
      await h.close();
    });

    const permanent = async (as = business, overrides: Record<string, unknown> = {}) => {
      const response = await h.request({ url: `${API}/account/generate`, body: customer(overrides), as });
      assert.ok(response.statusCode < 300, response.body);
      return response.json().data.accountNumber as string;
    };
    const temporary = async (body: Record<string, unknown> = {}) => {
      const response = await h.request({
        url: `${API}/account/generate/temporary`,
        body: customer(body),
        as: business,
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data;
    };
    // The clock stands still, so two identical requests would carry one signature (a replay):
    // each payment gets a narration of its own.
    let payments = 0;
    const pay = (
      accountNumber: string,
      amount: unknown,
      as = business,
      extra: Record<string, unknown> = {},
    ) =>
      h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber, amount, narration: `payment ${++payments}`, ...extra },
        as,
      });
    const get = (url: string, as = business) => h.request({ url: `${API}${url}`, as });

    test("a transfer into a permanent account is credited and readable everywhere", async () => {
      const number = await permanent();
      const paid = await pay(number, 150_000, business, {
        payerName: "Chinedu Okafor",
        payerAccountNumber: "0011223344",
        payerBankName: "Example Bank",
        narration: "Invoice 1042",
      });
      assert.equal(paid.statusCode, 201, paid.body);
      const transaction = paid.json().data;
      assert.match(transaction.id, /^txn_[0-9a-f]{32}$/);
      assert.deepEqual(
        { ...transaction, id: undefined, sessionId: undefined },
        {
          id: undefined,
          sessionId: undefined,
          accountNumber: number,
          amount: 150_000,
          fee: 0,
          charges: [],
          netAmount: 150_000,
          currency: "NGN",
          payer: {
            name: "Chinedu Okafor",
            accountNumber: "0011223344",
            bankName: "Example Bank",
            bankCode: null,
          },
          narration: "Invoice 1042",
          status: "successful",
          paidAt: new Date(clock).toISOString(),
          createdAt: new Date(clock).toISOString(),
          balanceAfter: 150_000,
          refundedAmount: 0,
        },
      );
      assert.deepEqual((await get(`/transactions/${transaction.id}`)).json().data, transaction);
      const account = (await get(`/account/${number}`)).json().data;
      assert.equal(account.status, "active");
      assert.equal(account.totalReceived, 150_000);
      assert.equal(account.expectedAmount, null);
      const balance = (await get("/balance")).json().data;
      assert.deepEqual(balance, {
        available: 150_000,
        pending: 0,
        held: 0,
        totalReceived: 150_000,
        totalPaidOut: 0,
        totalFees: 0,
        totalVat: 0,
        totalStampDuty: 0,
        currency: "NGN",
      });
    });

    test("a temporary account is credited until the instant before expiresAt, refused at it", async () => {
      const account = await temporary({ duration: 30 });
      const expiresAt = Date.parse(account.expiresAt);
      assert.equal(expiresAt, clock + 30 * MINUTE);
      clock = expiresAt - 1;
      assert.equal((await pay(account.accountNumber, 1_000)).statusCode, 201);
      assert.equal((await get(`/account/${account.accountNumber}`)).json().data.status, "active");
      clock = expiresAt;
      assertFailCode(await pay(account.accountNumber, 1_000), 422, "ACCOUNT_EXPIRED");
      assert.equal((await get(`/account/${account.accountNumber}`)).json().data.status, "expired");
      const listed = (await get("/account/list?limit=100")).json().data;
      assert.equal(
        listed.find((a: { accountNumber: string }) => a.accountNumber === account.accountNumber).status,
        "expired",
      );
      assert.equal((await get(`/account/${account.accountNumber}`)).json().data.totalReceived, 1_000);
    });

    test("an expected amount is accepted once, exactly; any other amount is refused", async () => {
      const account = await temporary({ expectedAmount: 250_000 });
      assert.equal(account.expectedAmount, 250_000);
      assertFailCode(await pay(account.accountNumber, 249_999), 422, "AMOUNT_MISMATCH");
      assertFailCode(await pay(account.accountNumber, 250_001), 422, "AMOUNT_MISMATCH");
      assert.equal((await pay(account.accountNumber, 250_000)).statusCode, 201);
      assertFailCode(await pay(account.accountNumber, 250_000), 422, "ALREADY_PAID");
      const detail = (await get(`/account/${account.accountNumber}`)).json().data;
      assert.equal(detail.totalReceived, 250_000);
      assert.equal(detail.expectedAmount, 250_000);
    });

    test("expectedAmount must be whole kobo within the limit", async () => {
      for (const bad of [0, -5, 1.5, "1000", 5_000_001]) {
        const response = await h.request({
          url: `${API}/account/generate/temporary`,
          body: customer({ expectedAmount: bad }),
          as: business,
        });
        assertValidation(response, "expectedAmount must be a whole number of kobo from 1 to 5000000");
      }
    });

    test("a number retired by a re-issue is refused, and is no longer an account", async () => {
      const email = "reissued@example.com";
      const first = await permanent(business, { email, name: "First Name" });
      const second = await permanent(business, { email, name: "Second Name" });
      assert.notEqual(first, second);
      assertFailCode(await pay(first, 5_000), 422, "ACCOUNT_RETIRED");
      assertFailCode(await get(`/account/${first}`), 404, "ACCOUNT_RETIRED");
      assert.equal((await pay(second, 5_000)).statusCode, 201);
    });

    test("a deactivated account refuses transfers; reactivating or re-issuing restores it", async () => {
      const email = "lifecycle@example.com";
      const number = await permanent(business, { email });
      const off = await h.request({ url: `${API}/account/${number}/deactivate`, body: "", as: business });
      assert.equal(off.statusCode, 200, off.body);
      assert.equal(off.json().data.status, "deactivated");
      const again = await h.request({ url: `${API}/account/${number}/deactivate`, body: "{}", as: business });
      assert.equal(again.json().data.status, "deactivated", "deactivating twice is harmless");
      assertFailCode(await pay(number, 700), 422, "ACCOUNT_DEACTIVATED");
      // Version 1 signs the body and timestamp only: another body keeps this from being a replay.
      const on = await h.request({ url: `${API}/account/${number}/reactivate`, body: "{ }", as: business });
      assert.equal(on.json().data.status, "active");
      assert.equal((await pay(number, 700)).statusCode, 201);
      await h.request({ url: `${API}/account/${number}/deactivate`, body: " ", as: business });
      const reissued = await permanent(business, { email, name: "New Name" });
      assert.equal((await get(`/account/${reissued}`)).json().data.status, "active");
      assert.equal((await pay(reissued, 700)).statusCode, 201);
      const temp = await temporary();
      assertFailCode(
        await h.request({
          url: `${API}/account/${temp.accountNumber}/deactivate`,
          body: "",
          as: business,
          timestamp: clock + 1,
        }),
        422,
        "ACCOUNT_NOT_PERMANENT",
      );
    });

    test("amounts: whole positive kobo, at most MAX_TRANSFER_KOBO", async () => {
      const number = await permanent();
      for (const bad of [0, -1, 1.5, "100", null]) {
        const response = await pay(number, bad);
        assert.equal(response.statusCode, 400, response.body);
      }
      assertValidation(
        await h.request({ url: `${API}/sandbox/transfers`, body: { amount: 5 }, as: business }),
        "accountNumber is required",
      );
      assertFailCode(await pay(number, 5_000_001), 422, "AMOUNT_ABOVE_LIMIT");
      assertValidation(
        await pay(number, 1.5),
        "amount must be a whole number of kobo from 1 to 5000000",
        // The configured MAX_TRANSFER_KOBO, not the protocol's own ceiling.
      );
      assert.equal((await pay(number, 5_000_000)).statusCode, 201);
    });

    test("another business's account, transaction and sandbox transfer are 404", async () => {
      const theirs = await permanent(other);
      const theirTransaction = (await pay(theirs, 100, other)).json().data;
      assertFailCode(await pay(theirs, 100), 404, "ACCOUNT_NOT_FOUND");
      assertFailCode(await get(`/account/${theirs}`), 404, "ACCOUNT_NOT_FOUND");
      assertFailCode(
        await h.request({
          url: `${API}/account/${theirs}/deactivate`,
          body: "{}",
          as: business,
          timestamp: clock + 1,
        }),
        404,
        "ACCOUNT_NOT_FOUND",
      );
      assertFailCode(await get(`/transactions/${theirTransaction.id}`), 404, "TRANSACTION_NOT_FOUND");
      assertFailCode(await get(`/transactions?accountNumber=${theirs}`), 404, "ACCOUNT_NOT_FOUND");
      assertFailCode(await get("/transactions/txn_nope"), 404, "TRANSACTION_NOT_FOUND");
      assertFailCode(await pay("0000000000", 100), 404, "ACCOUNT_NOT_FOUND");
      assertFailCode(await get("/account/12345"), 404, "NOT_FOUND");
      const mine = (await get("/transactions?limit=100")).json().data;
      assert.ok(!mine.some((t: { id: string }) => t.id === theirTransaction.id));
    });

    test("fees: taken from each transfer, rounded half up, capped, moved to revenue", async () => {
      const feePayer = await h.createBusiness({ name: "Fee Payer" });
      await h.services.collections.setFee(feePayer.businessId, { basisPoints: 150, capKobo: 20_000 });
      const number = await permanent(feePayer);
      const small = (await pay(number, 1_033, feePayer)).json().data; // 15.495 kobo: 15
      assert.deepEqual([small.fee, small.netAmount, small.balanceAfter], [15, 1_018, 1_018]);
      const large = (await pay(number, 4_000_000, feePayer)).json().data; // 60,000 capped at 20,000
      assert.deepEqual([large.fee, large.netAmount, large.balanceAfter], [20_000, 3_980_000, 3_981_018]);
      assert.deepEqual((await get("/balance", feePayer)).json().data, {
        available: 3_981_018,
        pending: 0,
        held: 0,
        totalReceived: 4_001_033,
        totalPaidOut: 0,
        totalFees: 20_015,
        totalVat: 0,
        totalStampDuty: 0,
        currency: "NGN",
      });
    });

    test("transactions: newest first, paged, filtered by account and by recording time", async () => {
      const lister = await h.createBusiness({ name: "Lister" });
      const a = await permanent(lister);
      const b = await permanent(lister);
      const start = clock;
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        clock = start + i * MINUTE;
        const response = await pay(i % 3 === 0 ? b : a, 100 + i, lister);
        ids.push(response.json().data.id);
      }
      const page = (await get("/transactions?limit=5&page=2", lister)).json();
      assert.deepEqual(page.pagination, { page: 2, limit: 5, total: 12, pages: 3 });
      assert.deepEqual(
        page.data.map((t: { id: string }) => t.id),
        ids.slice(2, 7).reverse(),
      );
      const ofB = (await get(`/transactions?accountNumber=${b}&limit=100`, lister)).json();
      assert.equal(ofB.pagination.total, 4);
      assert.deepEqual(
        ofB.data.map((t: { id: string }) => t.id),
        [ids[9], ids[6], ids[3], ids[0]],
      );
      const from = new Date(start + 3 * MINUTE).toISOString();
      const to = new Date(start + 7 * MINUTE + 30_000).toISOString();
      const window = (await get(`/transactions?from=${from}&to=${to}&limit=2&page=2`, lister)).json();
      assert.deepEqual(window.pagination, { page: 2, limit: 2, total: 5, pages: 3 });
      assert.deepEqual(
        window.data.map((t: { id: string }) => t.id),
        [ids[5], ids[4]],
      );
      const both = (await get(`/transactions?accountNumber=${b}&from=${from}&to=${to}`, lister)).json();
      assert.deepEqual(
        both.data.map((t: { id: string }) => t.id),
        [ids[6], ids[3]],
      );
      const past = (await get("/transactions?page=9", lister)).json();
      assert.deepEqual([past.data, past.pagination.total], [[], 12]);
      assertValidation(await get(`/transactions?from=${to}&to=${from}`, lister), "from must not be after to");
      assertValidation(
        await get("/transactions?from=yesterday", lister),
        "from must be an ISO 8601 date-time with a zone, like 2026-01-31T23:00:00Z",
      );
    });

    test("the ingestion path: idempotent on the session id, conflicts refused, every rule applied", async () => {
      const number = await permanent();
      const notification = {
        sessionId: `bank-session-${dialect}-1`,
        accountNumber: number,
        amount: 42_000,
        currency: "NGN",
        payer: { name: "Ada", accountNumber: "0123456789", bankName: "First Bank" },
        narration: "",
        paidAt: "2026-03-01T08:59:58+01:00",
      };
      const first = await h.services.collections.receive(notification);
      assert.equal(first.duplicate, false);
      assert.equal(first.transaction.paidAt, "2026-03-01T07:59:58.000Z");
      const second = await h.services.collections.receive(notification);
      assert.deepEqual(second, { transaction: first.transaction, duplicate: true, payment: null });
      for (const change of [{ amount: 42_001 }, { accountNumber: await permanent() }, { currency: "USD" }]) {
        await assert.rejects(h.services.collections.receive({ ...notification, ...change }), {
          code: "TRANSFER_CONFLICT",
          statusCode: 409,
        });
      }
      const fresh = (sessionId: string, change: Record<string, unknown>) => ({
        ...notification,
        sessionId,
        ...change,
      });
      await assert.rejects(h.services.collections.receive(fresh("s-usd", { currency: "USD" })), {
        code: "CURRENCY_NOT_SUPPORTED",
      });
      await assert.rejects(
        h.services.collections.receive(fresh("s-unknown", { accountNumber: "0000000019" })),
        {
          code: "UNKNOWN_ACCOUNT",
        },
      );
      await assert.rejects(h.services.collections.receive(fresh("s bad", {})), { code: "VALIDATION_FAILED" });
      await assert.rejects(h.services.collections.receive(fresh("s-float", { amount: 1.25 })), {
        code: "VALIDATION_FAILED",
      });
      const account = (await get(`/account/${number}`)).json().data;
      assert.equal(account.totalReceived, 42_000, "recorded once, nothing from the refusals");
    });

    test("entries and transactions are append-only: the database refuses UPDATE and DELETE", async () => {
      for (const statement of [
        sql`update ledger_entries set amount = amount + 1`,
        sql`delete from ledger_entries`,
        sql`update transactions set amount = 1`,
        sql`delete from transactions`,
      ]) {
        await assert.rejects(statement.execute(h.storage.db), /append-only/);
      }
    });
  });
}

describe("with SANDBOX=false", () => {
  let h: Harness;
  before(async () => {
    h = await createHarness({ env: { SANDBOX: "false" } });
  });
  after(() => h.close());

  test("POST /sandbox/transfers does not exist", async () => {
    const business = await h.createBusiness();
    const response = await h.request({
      url: `${API}/sandbox/transfers`,
      body: { accountNumber: "0000000000", amount: 1 },
      as: business,
    });
    assertFailCode(response, 404, "NOT_FOUND");
    await assert.rejects(
      h.services.collections.sandboxTransfer(
        { businessId: business.businessId, businessName: business.name },
        { accountNumber: "0123456789", amount: 100 },
      ),
      { code: "NOT_FOUND" },
    );
  });
});
