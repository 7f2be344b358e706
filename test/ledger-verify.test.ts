import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { ledgerAccountId } from "../src/ledger/kinds.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";

// `vas ledger verify` against a ledger tampered with behind the triggers' back (issue 17): the
// trigger refuses the rewrite, then with it dropped the rewrite lands and verify names where.

for (const dialect of DIALECTS) {
  describe(`vas ledger verify catches tampering on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      h = await createHarness({ dialect, masterKey, env: { SANDBOX: "true" } });
      env = cliEnv(h, masterKey);
    });
    after(() => h.close());

    test("a row rewritten with the triggers dropped is reported where it drifted, and exits 1", async () => {
      const victim = await h.createBusiness({ name: "Victim" });
      const bystander = await h.createBusiness({ name: "Bystander" });
      const pay = async (as: TestBusiness, amount: number) => {
        const number = (await h.request({ url: `${API}/account/generate`, body: customer(), as })).json().data
          .accountNumber;
        const paid = await h.request({
          url: `${API}/sandbox/transfers`,
          body: { accountNumber: number, amount },
          as,
        });
        assert.equal(paid.statusCode, 201, paid.body);
        return paid.json().data as { id: string };
      };
      const target = await pay(victim, 10_000);
      await pay(victim, 20_000);
      await pay(bystander, 5_000);
      assert.equal((await runVas(["ledger", "verify"], env)).code, 0);

      const db = h.storage.db;
      const rewrite = sql`update ledger_entries set amount = amount + 1, balance_after = balance_after + 1
        where transaction_id = ${target.id} and ledger_account_id = ${ledgerAccountId(victim.businessId, "available")}`;
      const refused = await rewrite.execute(db).catch((error: unknown) => error);
      assert.ok(refused instanceof Error && /append-only/.test(refused.message), "the trigger refuses first");
      if (dialect === "postgres") {
        await sql`drop trigger ledger_entries_append_only on ledger_entries`.execute(db);
      } else {
        await sql`drop trigger ledger_entries_no_update`.execute(db);
      }
      await rewrite.execute(db);

      const caught = await runVas(["ledger", "verify"], env);
      assert.equal(caught.code, 1, caught.stdout);
      const entry = `${ledgerAccountId(victim.businessId, "available")}#1`;
      assert.match(caught.stdout, new RegExp(`DRIFT entry ${entry}: hash does not match the entry's fields`));
      assert.match(
        caught.stdout,
        new RegExp(`DRIFT entry ${ledgerAccountId(victim.businessId, "available")}#2: balance after`),
      );
      assert.match(caught.stdout, new RegExp(`DRIFT transaction ${target.id}: entries sum to 1, not 0`));
      assert.match(
        caught.stdout,
        new RegExp(`DRIFT business ${victim.businessId}: available entries sum to 30001`),
      );
      assert.match(caught.stderr, /drifts found/);
      const scoped = await runVas(["ledger", "verify", "--business", bystander.businessId], env);
      assert.equal(scoped.code, 0, "another business's ledger is untouched");
      assert.match(scoped.stdout, /No drift\./);
    });

    test("an available balance taken below zero behind the database's back is reported", async () => {
      const spent = await h.createBusiness({ name: "Overspent" });
      const number = (await h.request({ url: `${API}/account/generate`, body: customer(), as: spent })).json()
        .data.accountNumber;
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber: number, amount: 1_000 },
        as: spent,
      });
      assert.equal(paid.statusCode, 201, paid.body);
      const db = h.storage.db;
      // An entry rewritten to take 5,000 kobo out of an account that holds 1,000: the append-only
      // guard and the balance's floor both dropped, as only someone with the database's keys can.
      if (dialect === "postgres") {
        await sql`drop trigger if exists ledger_entries_append_only on ledger_entries`.execute(db);
      } else {
        await sql`drop trigger if exists ledger_entries_no_update`.execute(db);
      }
      const available = ledgerAccountId(spent.businessId, "available");
      await sql`update ledger_entries set amount = -4000, balance_after = -4000
        where ledger_account_id = ${available}`.execute(db);
      const caught = await runVas(["ledger", "verify", "--business", spent.businessId], env);
      assert.equal(caught.code, 1, caught.stdout);
      assert.match(
        caught.stdout,
        new RegExp(
          `DRIFT ledger account ${available}: its entries take the available balance below zero \\(to -4000 kobo\\)`,
        ),
      );
    });
  });
}
