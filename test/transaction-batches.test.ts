import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Storage } from "../src/storage/database.js";
import type { Executor } from "../src/storage/executor.js";
import { DIALECTS, migratedStorage, storesOf } from "./helpers/databases.js";

// Small write transactions (issue 29: the outcomes of webhook deliveries), as the stores give them
// to the delivery worker: run together on SQLite, each keeping the outcome it would have had alone;
// on PostgreSQL each a transaction of its own.
for (const dialect of DIALECTS) {
  describe(`transaction batches on ${dialect}`, () => {
    let storage: Storage;
    let close: () => Promise<void>;

    before(async () => {
      const opened = await migratedStorage(dialect);
      storage = opened.storage;
      close = opened.close;
    });
    after(() => close());

    // SQLite's one writer takes transactions one at a time: there they are batched. PostgreSQL
    // runs each on its own, side by side on the pool.
    const batchedHere = dialect === "sqlite";
    const setting = async (trx: Executor, name: string) => {
      await trx
        .insertInto("settings")
        .values({ name, value: "1", created_at: new Date().toISOString() })
        .execute();
    };
    const names = async (prefix: string) =>
      (await storage.db.selectFrom("settings").select("name").where("name", "like", `${prefix}%`).execute())
        .map((row) => row.name)
        .sort();

    test("works submitted together share one transaction, run in the order of their keys", {
      skip: batchedHere ? false : "SQLite only",
    }, async () => {
      const batches = storesOf(storage).smallTransactions;
      const seen: Array<{ name: string; trx: Executor }> = [];
      const work = (name: string) => async (trx: Executor) => {
        seen.push({ name, trx });
        await setting(trx, name);
      };
      await Promise.all([
        batches.run(work("one-c"), "c"),
        batches.run(work("one-a"), "a"),
        batches.run(work("one-b"), "b"),
      ]);
      assert.deepEqual(
        seen.map((s) => s.name),
        ["one-a", "one-b", "one-c"],
      );
      assert.ok(
        seen.every((s) => s.trx === seen[0]?.trx),
        "one transaction's connection for all three",
      );
      assert.deepEqual(await names("one-"), ["one-a", "one-b", "one-c"]);
    });

    test("on PostgreSQL each work is a transaction of its own, run side by side", {
      skip: batchedHere ? "PostgreSQL only" : false,
    }, async () => {
      const batches = storesOf(storage).smallTransactions;
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const trxs: Executor[] = [];
      // The first waits inside its transaction until the second has committed: one at a time, it never would.
      const first = batches.run(async (trx) => {
        trxs.push(trx);
        await setting(trx, "five-a");
        await held;
      });
      await batches.run(async (trx) => {
        trxs.push(trx);
        await setting(trx, "five-b");
      });
      release();
      await first;
      assert.notEqual(trxs[0], trxs[1], "two connections");
      assert.deepEqual(await names("five-"), ["five-a", "five-b"]);
    });

    test("a work that fails fails alone: the others commit, its own writes do not", async () => {
      const batches = storesOf(storage).smallTransactions;
      const refused = new Error("refused by this work");
      const outcomes = await Promise.allSettled([
        batches.run((trx) => setting(trx, "two-a")),
        batches.run(async (trx) => {
          await setting(trx, "two-b");
          throw refused;
        }),
        batches.run((trx) => setting(trx, "two-c")),
      ]);
      assert.deepEqual(
        outcomes.map((o) => (o.status === "fulfilled" ? "ok" : o.reason)),
        ["ok", refused, "ok"],
      );
      assert.deepEqual(await names("two-"), ["two-a", "two-c"]);
    });

    test("the database unable to answer fails every work of the batch, none run again", {
      skip: batchedHere ? false : "SQLite only",
    }, async () => {
      const batches = storesOf(storage).smallTransactions;
      const lost = Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });
      let runs = 0;
      const outcomes = await Promise.allSettled([
        batches.run(async (trx) => {
          runs++;
          await setting(trx, "three-a");
        }),
        batches.run(async () => {
          runs++;
          throw lost;
        }),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status === "rejected" && o.reason),
        [lost, lost],
      );
      assert.equal(runs, 2, "each ran once, in the batch");
      assert.deepEqual(await names("three-"), [], "rolled back with the batch");
    });

    test("what arrives while a batch runs goes in the next one", {
      skip: batchedHere ? false : "SQLite only",
    }, async () => {
      const batches = storesOf(storage).smallTransactions;
      const trxs: Executor[] = [];
      let second: Promise<void> | undefined;
      await batches.run(async (trx) => {
        trxs.push(trx);
        second ??= batches.run(async (next) => {
          trxs.push(next);
          await setting(next, "four-b");
        });
        await setting(trx, "four-a");
      });
      await second;
      assert.equal(trxs.length, 2);
      assert.deepEqual(await names("four-"), ["four-a", "four-b"]);
    });
  });
}
