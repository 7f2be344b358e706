import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { databaseUrl, POSTGRES_AVAILABLE } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { assertLedgerInvariants } from "./helpers/ledger-invariants.js";
import { notification } from "./helpers/notifications.js";

// No global hot row (issue 17): the service's own ledger accounts are kept per business, so a
// transfer into one business never waits on another business's rows. Proved on PostgreSQL with
// a second session holding business A's ledger rows locked: a transfer into B completes while
// one into A waits until the lock is released. SQLite has no row locks (its one writer runs
// alone), so there is nothing to show there.

const WAIT_LIMIT_MS = 5_000;

/** Resolves with the promise's value, or rejects when it takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("no global hot row on postgres", {
  skip: !POSTGRES_AVAILABLE && "PostgreSQL is not reachable",
}, () => {
  let h: Harness;
  let a: TestBusiness;
  let b: TestBusiness;
  let holder: pg.Client;
  const numbers = new Map<string, string>();

  before(async () => {
    h = await createHarness({ dialect: "postgres" });
    a = await h.createBusiness({ name: "Business A" });
    b = await h.createBusiness({ name: "Business B" });
    for (const business of [a, b]) {
      const response = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      const number = response.json().data.accountNumber as string;
      numbers.set(business.businessId, number);
      // A first transfer creates the business's ledger rows.
      await h.services.collections.receive(notification(number, 1_000, new Date().toISOString()));
    }
    holder = new pg.Client({ connectionString: databaseUrl(h.database) });
    await holder.connect();
  });
  after(async () => {
    await holder.end();
    await assertLedgerInvariants(h.storage.db);
    await h.close();
  });

  const pay = (business: TestBusiness, amount: number) =>
    h.services.collections.receive(
      notification(numbers.get(business.businessId) as string, amount, new Date().toISOString()),
    );

  test("while A's ledger rows are locked, a transfer into B completes and one into A waits", async () => {
    await holder.query("begin");
    const locked = await holder.query("select id from ledger_accounts where business_id = $1 for update", [
      a.businessId,
    ]);
    assert.equal(
      locked.rowCount,
      6,
      "A's settlement, available and revenue rows, its two charges' accounts and its held account (issue 46), are held",
    );
    let intoA: Promise<unknown> | undefined;
    let aDone = false;
    try {
      intoA = pay(a, 2_000).then((result) => {
        aDone = true;
        return result;
      });
      const intoB = await within(pay(b, 3_000), WAIT_LIMIT_MS, "a transfer into B");
      assert.equal(intoB.duplicate, false);
      assert.equal(intoB.transaction.balanceAfter, 4_000);
      // B finished while A's lock was held; A must still be waiting for it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(aDone, false, "the transfer into A waits for A's rows");
    } finally {
      await holder.query("commit");
    }
    await within(intoA, WAIT_LIMIT_MS, "the transfer into A after the lock was released");
    assert.equal(aDone, true);
    const balance = await h.services.collections.balance({ businessId: a.businessId, businessName: a.name });
    assert.equal(balance.available, 3_000);
  });
});
