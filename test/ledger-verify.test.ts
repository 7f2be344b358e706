import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { type RawBuilder, sql } from "kysely";
import { CLI } from "../src/core/actor.js";
import { ledgerAccountId } from "../src/ledger/kinds.js";
import { SANDBOX_PAYEES } from "../src/providers/bank-directory.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { notification } from "./helpers/notifications.js";

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

  describe(`vas ledger verify checks held credits one by one on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      env = cliEnv(h, masterKey);
    });
    after(() => h.close());

    test("an acceptance, the held balance and a return that disagree with the rows are reported (issue 46)", async () => {
      const business = await h.createBusiness({ name: "Held Audit" });
      const forBusiness = { businessId: business.businessId, businessName: "Held Audit" };
      await h.services.collections.setFee(business.businessId, { basisPoints: 150, capKobo: null });
      const generated = await h.request({
        url: `${API}/account/generate`,
        body: customer({ allowedPayers: [{ name: "Ada Obi" }], onMismatch: "hold" }),
        as: business,
      });
      const { accountNumber } = generated.json().data;
      const payee = SANDBOX_PAYEES.find((p) => p.outcome === "successful");
      assert.ok(payee);
      const payer = {
        name: "Chidi Eze",
        accountNumber: payee.accountNumber,
        bankName: "Sandbox",
        bankCode: payee.bankCode,
      };
      const ids: string[] = [];
      for (const amount of [10_000, 20_000, 30_000]) {
        const { transaction } = await h.services.collections.receive(
          notification(accountNumber, amount, new Date().toISOString(), { payer }),
        );
        assert.equal(transaction.status, "held");
        ids.push(transaction.id);
      }
      const [a, b] = ids as [string, string];
      await h.services.heldCredits.accept(forBusiness, CLI, a);
      const refund = await h.services.refunds.returnHeld(forBusiness, CLI, b, { channel: "dashboard" });
      const verify = () => runVas(["ledger", "verify", "--business", business.businessId], env);
      const clean = await verify();
      assert.equal(clean.code, 0, clean.stdout);
      assert.match(clean.stdout, /No drift\./);
      const db = h.storage.db;
      const caught = async (
        change: RawBuilder<unknown>,
        undo: RawBuilder<unknown>,
        ...expected: string[]
      ) => {
        await change.execute(db);
        const report = await verify();
        assert.equal(report.code, 1, report.stdout);
        for (const line of expected)
          assert.ok(report.stdout.includes(`DRIFT ${line}\n`), `${line}\n${report.stdout}`);
        await undo.execute(db);
      };

      // The accepted credit said held again: the held balance is not the credits held now.
      await caught(
        sql`update held_credits set state = 'held' where transaction_id = ${a}`,
        sql`update held_credits set state = 'accepted' where transaction_id = ${a}`,
        `business ${business.businessId}: held entries sum to 30000, the 2 credits held now and the 0 blocks standing are 40000`,
      );
      // Its fee (150 bp of NGN 100) said another than its posting took.
      await caught(
        sql`update held_credits set fee = fee + 1 where transaction_id = ${a}`,
        sql`update held_credits set fee = fee - 1 where transaction_id = ${a}`,
        `held credit ${a}: its acceptance moved 150 on revenue, its amount 10000 and decision say 151`,
        `held credit ${a}: its acceptance moved 9850 on available, its amount 10000 and decision say 9849`,
      );
      // The return names a payout that is not there, then one that is no return of it.
      await caught(
        sql`update held_credits set refund_id = 'po_00000000000000000000000000000000' where transaction_id = ${b}`,
        sql`update held_credits set refund_id = ${refund.id} where transaction_id = ${b}`,
        `held credit ${b}: it was returned by po_00000000000000000000000000000000, which is no payout`,
      );
      await caught(
        sql`update payouts set source = 'available' where id = ${refund.id}`,
        sql`update payouts set source = 'held' where id = ${refund.id}`,
        `held credit ${b}: it was returned by ${refund.id}, which is not a return of its 20000 kobo from held`,
      );
      assert.equal((await verify()).code, 0, "every change undone");

      // The acceptance's own entries, rewritten behind the append-only guard's back.
      if (dialect === "postgres") {
        await sql`drop trigger if exists ledger_entries_append_only on ledger_entries`.execute(db);
      } else {
        await sql`drop trigger if exists ledger_entries_no_update`.execute(db);
      }
      const posting = await sql<{
        posting_id: string;
      }>`select posting_id from held_credits where transaction_id = ${a}`.execute(db);
      const postingId = posting.rows[0]?.posting_id;
      assert.ok(postingId);
      await caught(
        sql`update ledger_entries set amount = amount + 1 where transaction_id = ${postingId}
          and ledger_account_id = ${ledgerAccountId(business.businessId, "held")}`,
        sql`select 1`,
        `held credit ${a}: its acceptance's entries sum to 1, not 0`,
        `held credit ${a}: its acceptance moved -9999 on held, its amount 10000 and decision say -10000`,
      );
    });
  });
}
