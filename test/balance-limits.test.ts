import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { BankServer } from "../src/bank/bank-server.js";
import type { LedgerAccountKind } from "../src/ledger/kinds.js";
import { ledgerAccountId } from "../src/ledger/kinds.js";
import { MAX_BALANCE_KOBO } from "../src/ledger/posting.js";
import { assertFailCode } from "./helpers/assertions.js";
import { type BankAndService, startBankAndService } from "./helpers/bank-service.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// Issue 24, item 12: balances near 2^53. A transfer that would carry a balance past
// Number.MAX_SAFE_INTEGER kobo is refused with a 422 (the bank reverses it, never retries), on
// both routes money arrives by; one that reaches the limit exactly is credited, exactly.

const MAX = MAX_BALANCE_KOBO;
const APP_ID = "balance-limits";

/**
 * Sets the business's ledger heads, what the next posting builds on, to these balances. The
 * heads are not append-only (they move with every posting); the entries behind them are, and are
 * left as they were, so `vas ledger verify` would report this: the test stands in for years of
 * takings, not for a consistent ledger.
 */
async function setBalances(
  h: Harness,
  businessId: string,
  balances: Partial<Record<LedgerAccountKind, number>>,
) {
  for (const [kind, balance] of Object.entries(balances)) {
    await sql`update ledger_accounts set balance = ${balance}
      where id = ${ledgerAccountId(businessId, kind as LedgerAccountKind)}`.execute(h.storage.db);
  }
}

const balanceOf = async (h: Harness, as: TestBusiness) =>
  (await h.request({ url: `${API}/balance`, as })).json().data as Record<string, number>;
const transactionCount = async (h: Harness, as: TestBusiness) =>
  (await h.request({ url: `${API}/transactions`, as })).json().pagination.total as number;

for (const dialect of DIALECTS) {
  describe(`balances near 2^53 through the sandbox on ${dialect}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness({ dialect, env: { SANDBOX: "true" } });
    });
    after(() => h.close());

    let payments = 0;
    const setUp = async (name: string) => {
      const business = await h.createBusiness({ name });
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      const number = generated.json().data.accountNumber as string;
      // Each payment its own narration: two identical requests in one millisecond are one replay.
      const pay = (amount: number) =>
        h.request({
          url: `${API}/sandbox/transfers`,
          body: { accountNumber: number, amount, narration: `payment ${++payments}` },
          as: business,
        });
      assert.equal((await pay(1_000)).statusCode, 201, "the first transfer opens the ledger accounts");
      return { business, pay };
    };

    test("one kobo past the limit is a 422 and changes nothing; reaching it exactly is credited", async () => {
      const { business, pay } = await setUp("Nearly Full");
      await setBalances(h, business.businessId, { settlement: -(MAX - 500), available: MAX - 500 });
      const before = await transactionCount(h, business);

      const refused = await pay(501);
      assertFailCode(refused, 422, "AMOUNT_ABOVE_LIMIT");
      assert.match(refused.json().message, /total received past 9007199254740991 kobo/);
      assert.equal(await transactionCount(h, business), before, "nothing recorded");
      assert.equal((await balanceOf(h, business)).available, MAX - 500, "nothing posted");

      const credited = await pay(500);
      assert.equal(credited.statusCode, 201, credited.body);
      assert.equal(credited.json().data.balanceAfter, MAX);
      assert.deepEqual(await balanceOf(h, business), {
        available: MAX,
        pending: 0,
        held: 0,
        totalReceived: MAX,
        totalPaidOut: 0,
        totalFees: 0,
        totalVat: 0,
        totalStampDuty: 0,
        currency: "NGN",
      });
      assertFailCode(await pay(1), 422, "AMOUNT_ABOVE_LIMIT");
    });

    test("the business's total fees are held to the limit too, whichever balance reaches it", async () => {
      const { business, pay } = await setUp("Fee Heavy");
      await h.services.collections.setFee(business.businessId, { basisPoints: 100, capKobo: null });
      await setBalances(h, business.businessId, { revenue: MAX - 5 });
      const refused = await pay(1_000); // a fee of 10
      assertFailCode(refused, 422, "AMOUNT_ABOVE_LIMIT");
      assert.match(refused.json().message, /total fees/);
      const credited = await pay(500); // a fee of 5
      assert.equal(credited.statusCode, 201, credited.body);
      assert.equal((await balanceOf(h, business)).totalFees, MAX);
    });
  });

  describe(`balances near 2^53 through the bank's notifications on ${dialect}`, () => {
    let both: BankAndService;
    let bank: BankServer;
    let h: Harness;
    let business: TestBusiness;
    let number: string;

    before(async () => {
      both = await startBankAndService(dialect, {
        appId: APP_ID,
        notify: true,
        retryBaseMs: 50,
        maxAttempts: 4,
      });
      ({ bank, h, business, accountNumber: number } = both);
    });
    after(() => both?.close());

    /** The bank takes a payment into the account and notifies until the service settles it. */
    const bankPays = async (amount: number) => {
      const paid = await fetch(`${bank.address}/sandbox/pay`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ virtualAccountNo: number, amount }),
      });
      const orderNo = ((await paid.json()) as { data: { orderNo: string } }).data.orderNo;
      for (let i = 0; i < 400; i++) {
        const response = await fetch(`${bank.address}/sandbox/transfers/${orderNo}`);
        const transfer = ((await response.json()) as { data: BankTransfer }).data;
        if (transfer.status !== "pending") return transfer;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`transfer ${orderNo} still pending`);
    };

    test("a notification past the limit is refused once with a 422 and reversed, never retried", async () => {
      assert.equal((await bankPays(1_000)).status, "acknowledged");
      await setBalances(h, business.businessId, { settlement: -(MAX - 500), available: MAX - 500 });
      const before = await transactionCount(h, business);

      const refused = await bankPays(501);
      assert.equal(refused.status, "refused", "the bank reverses it");
      assert.equal(refused.attempts, 1, "and does not retry");
      assert.match(refused.lastError ?? "", /^HTTP 422: .*AMOUNT_ABOVE_LIMIT/);
      assert.equal(await transactionCount(h, business), before);

      assert.equal((await bankPays(500)).status, "acknowledged");
      const balance = await balanceOf(h, business);
      assert.deepEqual([balance.available, balance.totalReceived], [MAX, MAX]);
      const full = await bankPays(1);
      assert.deepEqual([full.status, full.attempts], ["refused", 1]);
    });
  });
}

interface BankTransfer {
  status: "pending" | "acknowledged" | "refused" | "abandoned";
  attempts: number;
  lastError: string | null;
}
