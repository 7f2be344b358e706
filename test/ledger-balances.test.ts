import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { isNegativeBalanceRefusal } from "../src/storage/errors.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, type Harness, permanentInputOf, type TestBusiness } from "./helpers/harness.js";
import { notification } from "./helpers/notifications.js";

// The database itself keeps `available` and `pending` balances at zero or more (migration
// 0019), whatever the code above it does: a write past zero fails, and its transaction with it.

for (const dialect of DIALECTS) {
  describe(`balances that cannot go below zero, on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect });
      business = await h.createBusiness({ name: "Floor Ltd" });
      const owner = { businessId: business.businessId, businessName: business.name };
      const { account } = await h.services.accounts.generatePermanent(
        owner,
        { type: "cli", id: null },
        permanentInputOf(),
      );
      await h.services.collections.receive(
        notification(account.accountNumber, 5_000, new Date().toISOString()),
      );
    });
    after(() => h.close());

    const balanceOf = async (kind: string) => {
      const row = await h.storage.db
        .selectFrom("ledger_accounts")
        .select("balance")
        .where("id", "=", `${business.businessId}:${kind}`)
        .executeTakeFirstOrThrow();
      return Number(row.balance);
    };

    test("available can reach zero but not go below it", async () => {
      const id = `${business.businessId}:available`;
      const refused = await sql`update ledger_accounts set balance = -1 where id = ${id}`
        .execute(h.storage.db)
        .catch((error: unknown) => error);
      assert.ok(isNegativeBalanceRefusal(refused), String(refused));
      assert.equal(await balanceOf("available"), 5_000, "nothing changed");
      await sql`update ledger_accounts set balance = 0 where id = ${id}`.execute(h.storage.db);
      assert.equal(await balanceOf("available"), 0);
      await sql`update ledger_accounts set balance = 5000 where id = ${id}`.execute(h.storage.db);
    });

    test("a pending account cannot be opened below zero; settlement is negative by design", async () => {
      const refused = await sql`
        insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
        values (${`${business.businessId}:pending`}, ${business.businessId}, 'pending', 'NGN', -5, 0, '', '2026-01-01T00:00:00.000Z')`
        .execute(h.storage.db)
        .catch((error: unknown) => error);
      assert.ok(isNegativeBalanceRefusal(refused), String(refused));
      assert.equal(await balanceOf("settlement"), -5_000, "the bank's side carries a debit balance");
    });

    test("the refusal rolls back the whole transaction it was part of", async () => {
      const id = `${business.businessId}:available`;
      const refused = await h.storage.db
        .transaction()
        .execute(async (trx) => {
          await sql`update ledger_accounts set entry_count = entry_count + 100 where id = ${id}`.execute(trx);
          await sql`update ledger_accounts set balance = balance - 5001 where id = ${id}`.execute(trx);
        })
        .catch((error: unknown) => error);
      assert.ok(isNegativeBalanceRefusal(refused), String(refused));
      const row = await h.storage.db
        .selectFrom("ledger_accounts")
        .select(["balance", "entry_count"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(row.balance), Number(row.entry_count) < 100], [5_000, true]);
    });
  });
}
