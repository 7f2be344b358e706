import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { LEDGER_CHECKPOINT_INTERVAL_MS } from "../src/compose/jobs.js";
import { composeServer } from "../src/compose/server.js";
import type { LedgerAccountKind } from "../src/ledger/kinds.js";
import { ledgerAccountId } from "../src/ledger/kinds.js";
import { GENESIS_HASH } from "../src/ledger/posting.js";
import { checkpointMac } from "../src/ledger-audit/checkpoint.js";
import type { Executor } from "../src/storage/executor.js";
import { cliEnv, runVas } from "./helpers/cli.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  type Harness,
  type TestBusiness,
  testConfig,
} from "./helpers/harness.js";

// Issue 24, item 11: with the triggers out of the way, deleting the newest transaction and
// moving the heads back used to pass `vas ledger verify`. After a checkpoint it no longer does.
// Each test verifies its own business (--business), since others here tamper on purpose.

const KINDS: LedgerAccountKind[] = ["settlement", "available", "revenue"];

test("the checkpoint MAC matches a known vector (HMAC-SHA256 over its fields, one per line)", () => {
  const mac = checkpointMac(Buffer.from(Array.from({ length: 32 }, (_, i) => i)), {
    runId: "run-1",
    businessId: "biz-1",
    ledgerAccountId: "biz-1:available",
    entryCount: 42,
    headHash: "ab".repeat(32),
    createdAt: "2024-01-02T03:04:05.000Z",
  });
  assert.equal(mac, "7a3288e380beb7740b9f15821588ad6d308ee2f6ddf84ddde09ab039f0c0be7e");
});

/**
 * Runs `work` as someone with write access who switches the triggers off: PostgreSQL's replica
 * role for one transaction; on SQLite, which cannot disable a trigger, the triggers are dropped
 * and then put back exactly as they were.
 */
async function withTriggersOff(h: Harness, work: (db: Executor) => Promise<void>): Promise<void> {
  const db = h.storage.db;
  if (h.dialect === "postgres") {
    await db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await work(trx);
    });
    return;
  }
  const triggers = await sql<{ name: string; sql: string }>`
    select name, sql from sqlite_master where type = 'trigger'`.execute(db);
  for (const trigger of triggers.rows) await sql.raw(`drop trigger ${trigger.name}`).execute(db);
  try {
    await work(db);
  } finally {
    for (const trigger of triggers.rows) await sql.raw(trigger.sql).execute(db);
  }
}

/**
 * Deletes the business's newest transaction and its entries, and puts everything that counts
 * them (ledger heads, the account's totals) back as if it had never been: a careful tamperer.
 */
async function removeNewestTransaction(h: Harness, businessId: string): Promise<void> {
  await withTriggersOff(h, async (db) => {
    const newest = await db
      .selectFrom("transactions")
      .selectAll()
      .where("business_id", "=", businessId)
      .orderBy("ordinal", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    await db.deleteFrom("ledger_entries").where("transaction_id", "=", newest.id).execute();
    await db.deleteFrom("transactions").where("id", "=", newest.id).execute();
    for (const kind of KINDS) {
      const id = ledgerAccountId(businessId, kind);
      const head = await db
        .selectFrom("ledger_entries")
        .selectAll()
        .where("ledger_account_id", "=", id)
        .orderBy("sequence", "desc")
        .limit(1)
        .executeTakeFirst();
      await db
        .updateTable("ledger_accounts")
        .set({
          balance: Number(head?.balance_after ?? 0),
          entry_count: head?.sequence ?? 0,
          last_hash: head?.hash ?? GENESIS_HASH,
        })
        .where("id", "=", id)
        .execute();
    }
    await db
      .updateTable("accounts")
      .set((eb) => ({
        total_received: eb("total_received", "-", Number(newest.amount)),
        transfer_count: eb("transfer_count", "-", 1),
      }))
      .where("id", "=", newest.account_id)
      .execute();
  });
}

for (const dialect of DIALECTS) {
  describe(`ledger checkpoints on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      h = await createHarness({ dialect, masterKey, env: { SANDBOX: "true" } });
      env = cliEnv(h, masterKey);
    });
    after(() => h.close());

    const pay = async (as: TestBusiness, amount: number) => {
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as });
      const paid = await h.request({
        url: `${API}/sandbox/transfers`,
        body: { accountNumber: generated.json().data.accountNumber, amount },
        as,
      });
      assert.equal(paid.statusCode, 201, paid.body);
    };
    const checkpoint = async () => {
      const run = await runVas(["ledger", "checkpoint", "--json"], env);
      assert.equal(run.code, 0, run.stderr);
      return JSON.parse(run.stdout) as {
        runId: string;
        checkpoints: { ledgerAccountId: string; entryCount: number; headHash: string }[];
      };
    };
    const verify = (business: TestBusiness) =>
      runVas(["ledger", "verify", "--business", business.businessId], env);

    test("a clean ledger with checkpoints verifies clean; only heads that moved are checkpointed again", async () => {
      const shop = await h.createBusiness({ name: "Clean Shop" });
      await pay(shop, 10_000);
      await pay(shop, 20_000);
      const first = await checkpoint();
      const available = ledgerAccountId(shop.businessId, "available");
      const settlement = ledgerAccountId(shop.businessId, "settlement");
      assert.deepEqual(
        first.checkpoints.map((c) => [c.ledgerAccountId, c.entryCount]),
        [
          [available, 2],
          [settlement, 2],
        ],
        "revenue has no entries (no fee): nothing to vouch for",
      );
      const again = await runVas(["ledger", "checkpoint"], env);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^Nothing to record: no ledger account's head moved/);

      await pay(shop, 5_000);
      const text = await runVas(["ledger", "checkpoint"], env);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Recorded checkpoint [0-9a-f-]{36} at \S+: 2 ledger accounts\.\n/);
      assert.match(text.stdout, new RegExp(`${available}\\s+3\\s+[0-9a-f]{64}`));

      const whole = await runVas(["ledger", "verify"], env);
      assert.equal(whole.code, 0, whole.stdout);
      assert.match(whole.stdout, /transactions, 4 checkpoints\.\nNo drift\.\n$/);
      const report = JSON.parse((await runVas(["ledger", "verify", "--json"], env)).stdout);
      assert.equal(report.checkpoints, 4);
      assert.deepEqual(report.drifts, []);
    });

    test("a tail removed after a checkpoint, heads moved back behind the triggers, is a drift", async () => {
      const victim = await h.createBusiness({ name: "Victim" });
      await pay(victim, 10_000);
      await pay(victim, 20_000);
      await checkpoint();
      const refused = await h.storage.db
        .deleteFrom("ledger_entries")
        .where("business_id", "=", victim.businessId)
        .execute()
        .catch((error: unknown) => error);
      assert.ok(refused instanceof Error && /append-only/.test(refused.message), "the triggers refuse first");

      await removeNewestTransaction(h, victim.businessId);
      const caught = await verify(victim);
      assert.equal(caught.code, 1, caught.stdout);
      for (const kind of ["available", "settlement"] as const) {
        assert.match(
          caught.stdout,
          new RegExp(
            `DRIFT checkpoint ${ledgerAccountId(victim.businessId, kind)}#2: the chain has no entry #2 ` +
              "\\(it ends at #1\\): entries were removed after this checkpoint",
          ),
        );
      }
      assert.doesNotMatch(caught.stdout, /DRIFT (entry|ledger account|transaction|business|account) /);
      assert.match(caught.stderr, /2 drifts found/);
    });

    test("what was added and removed between two checkpoints goes unseen (docs/ledger.md says so)", async () => {
      const quiet = await h.createBusiness({ name: "Between Checkpoints" });
      await pay(quiet, 10_000);
      await checkpoint();
      await pay(quiet, 20_000);
      await removeNewestTransaction(h, quiet.businessId);
      const run = await verify(quiet);
      assert.equal(run.code, 0, `the tamperer's repair is complete: ${run.stdout}`);
    });

    test("a forged checkpoint is reported: its MAC does not verify", async () => {
      const forged = await h.createBusiness({ name: "Forged" });
      await pay(forged, 10_000);
      const id = ledgerAccountId(forged.businessId, "available");
      const entry = await h.storage.db
        .selectFrom("ledger_entries")
        .select("hash")
        .where("ledger_account_id", "=", id)
        .executeTakeFirstOrThrow();
      const fields = {
        ledgerAccountId: id,
        entryCount: 1,
        headHash: entry.hash,
        businessId: forged.businessId,
        runId: "forged",
        createdAt: new Date().toISOString(),
      };
      // Inserting is all it takes: no trigger stands in the way, only the key nobody here has.
      await h.storage.db
        .insertInto("ledger_checkpoints")
        .values({
          ledger_account_id: id,
          entry_count: 1,
          head_hash: entry.hash,
          business_id: forged.businessId,
          run_id: "forged",
          created_at: fields.createdAt,
          mac: checkpointMac(randomBytes(32), fields),
        })
        .execute();
      const run = await verify(forged);
      assert.equal(run.code, 1, run.stdout);
      assert.match(
        run.stdout,
        new RegExp(`DRIFT checkpoint ${id}#1: its MAC does not verify: the checkpoint was forged or altered`),
      );
    });

    test("checkpoints are append-only", async () => {
      for (const change of [
        sql`update ledger_checkpoints set head_hash = ${GENESIS_HASH}`,
        sql`delete from ledger_checkpoints`,
      ]) {
        const refused = await change.execute(h.storage.db).catch((error: unknown) => error);
        assert.ok(refused instanceof Error && /append-only/.test(refused.message), String(refused));
      }
    });

    test("TRUNCATE of the ledger's tables is refused", {
      skip: dialect !== "postgres" && "SQLite has no TRUNCATE (DELETE fires the row triggers)",
    }, async () => {
      // CASCADE gets past the foreign keys that stop a plain TRUNCATE of a referenced table.
      const statements = [
        ...["ledger_accounts", "transactions", "ledger_entries", "ledger_checkpoints"].map(
          (table) => `truncate ${table} cascade`,
        ),
        "truncate ledger_entries",
        "truncate ledger_checkpoints",
      ];
      for (const statement of statements) {
        const refused = await sql
          .raw(statement)
          .execute(h.storage.db)
          .catch((error: unknown) => error);
        assert.ok(refused instanceof Error, `${statement} was refused`);
        assert.match(refused.message, /TRUNCATE refused/, statement);
        assert.equal((refused as { code?: string }).code, "VAS01");
      }
      const left = await h.storage.db
        .selectFrom("ledger_entries")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      assert.ok(Number(left.n) > 0);
    });

    test("the server records checkpoints as an hourly job", async () => {
      const server = await composeServer(testConfig(h.database, masterKey));
      try {
        assert.ok(server.jobs.names().includes("ledger-checkpoint"), server.jobs.names().join());
        assert.equal(LEDGER_CHECKPOINT_INTERVAL_MS, 3_600_000);
      } finally {
        await server.close();
      }
    });

    // Last: from here on the database answers to another master key.
    test("checkpoints stay verifiable after the master key is rotated", async () => {
      const kept = await h.createBusiness({ name: "Rotated" });
      await pay(kept, 10_000);
      await checkpoint();
      const newKey = randomBytes(32);
      const rotated = await runVas(["secrets", "rotate-master-key"], {
        ...env,
        VAS_MASTER_KEY: newKey.toString("hex"),
        VAS_MASTER_KEY_PREVIOUS: masterKey.toString("hex"),
      });
      assert.equal(rotated.code, 0, rotated.stderr);
      const run = await runVas(["ledger", "verify", "--business", kept.businessId], {
        ...env,
        VAS_MASTER_KEY: newKey.toString("hex"),
      });
      assert.equal(run.code, 0, run.stdout);
      assert.match(run.stdout, /2 checkpoints\.\nNo drift\.\n$/);
    });
  });
}
