import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import SqliteDatabase from "better-sqlite3";
import { GroupCommit } from "./group-commit.js";

// Group commit is SQLite's alone (PostgreSQL commits per connection): a real database file,
// a second connection to see what is committed, and the connection's turns as the service
// takes them.

describe("group commit (SQLite)", () => {
  let dir: string;
  let writer: SqliteDatabase.Database;
  let observer: SqliteDatabase.Database;
  let commits: number;
  let group: GroupCommit;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "vas-group-"));
    const file = path.join(dir, "group.db");
    writer = new SqliteDatabase(file);
    writer.pragma("journal_mode = WAL");
    writer.exec("create table t (k text primary key, v integer not null)");
    // A deferred foreign key is checked at COMMIT: a way to make a group's commit fail.
    writer.exec("create table gate (x text references t(k) deferrable initially deferred)");
    observer = new SqliteDatabase(file, { readonly: true });
  });
  after(() => {
    writer.close();
    observer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    writer.exec("delete from t");
    commits = 0;
    // Counts the groups: each turn is one transaction.
    group = new GroupCommit(writer, async (run) => {
      commits++;
      run();
    });
  });

  const insert = (k: string, v: number) => (db: SqliteDatabase.Database) =>
    db.prepare("insert into t (k, v) values (?, ?)").run(k, v).changes;
  const committed = () => observer.prepare("select k, v from t order by k").all();

  test("writes submitted together share one transaction, and settle only once it committed", async () => {
    const settled: string[] = [];
    const writes = ["a", "b", "c"].map((k, i) =>
      group.run(insert(k, i)).then((changes) => {
        // At the moment a write settles, its row is visible to another connection.
        assert.ok(
          (observer.prepare("select count(*) as n from t where k = ?").get(k) as { n: number }).n === 1,
        );
        settled.push(k);
        return changes;
      }),
    );
    assert.deepEqual(await Promise.all(writes), [1, 1, 1]);
    assert.equal(commits, 1, "one commit for the three");
    assert.deepEqual(settled, ["a", "b", "c"]);
    assert.deepEqual(committed(), [
      { k: "a", v: 0 },
      { k: "b", v: 1 },
      { k: "c", v: 2 },
    ]);
  });

  test("a write that throws rolls back only itself; the others commit", async () => {
    const [first, failing, last] = await Promise.allSettled([
      group.run(insert("a", 1)),
      group.run((db) => {
        insert("half", 1)(db);
        throw new Error("refused after writing");
      }),
      group.run(insert("a", 2)), // a unique violation: refused alone
    ]);
    assert.equal(first.status, "fulfilled");
    assert.equal(failing.status, "rejected");
    assert.equal(last.status, "rejected");
    assert.match(String((last as PromiseRejectedResult).reason), /UNIQUE/);
    assert.deepEqual(committed(), [{ k: "a", v: 1 }], "the failed writes left nothing");
  });

  test("a failed commit fails every write of the group, and keeps none", async () => {
    writer.pragma("foreign_keys = ON");
    try {
      const results = await Promise.allSettled([
        group.run(insert("x", 1)),
        group.run((db) => db.prepare("insert into gate (x) values ('missing')").run().changes),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ["rejected", "rejected"],
      );
      assert.match(String((results[0] as PromiseRejectedResult).reason), /FOREIGN KEY/);
      assert.deepEqual(committed(), []);
      assert.equal(writer.inTransaction, false);
    } finally {
      writer.pragma("foreign_keys = OFF");
    }
  });

  test("a full disk: the write that does not fit fails with SQLite's error; what resolved is committed", async () => {
    const pages = writer.pragma("page_count", { simple: true }) as number;
    writer.pragma(`max_page_count = ${pages}`);
    let results: PromiseSettledResult<number>[];
    try {
      results = await Promise.allSettled([
        group.run(insert("small", 1)),
        group.run(
          (db) => db.prepare("insert into t (k, v) values (?, 0)").run(`big${"x".repeat(1 << 20)}`).changes,
        ),
        group.run(insert("after", 2)),
      ]);
    } finally {
      writer.pragma("max_page_count = 1073741823");
    }
    const big = results[1] as PromiseRejectedResult;
    assert.equal(big.status, "rejected");
    assert.equal(big.reason.code, "SQLITE_FULL");
    // SQLite may roll back only the statement or the whole transaction: either way, a write
    // resolved exactly when its row was committed, and one that failed says why.
    const keys = committed().map((row) => (row as { k: string }).k);
    for (const [i, k] of [
      [0, "small"],
      [2, "after"],
    ] as const) {
      const result = results[i] as PromiseSettledResult<number>;
      if (result.status === "fulfilled") assert.ok(keys.includes(k), `${k} resolved and is committed`);
      else {
        assert.equal(result.reason.code, "SQLITE_FULL");
        assert.ok(!keys.includes(k), `${k} failed and left nothing`);
      }
    }
    assert.ok(!keys.some((k) => k.startsWith("big")));
    assert.equal(writer.inTransaction, false);
    assert.equal(await group.run(insert("later", 3)), 1, "the next group commits again");
  });

  test("writes arriving while the connection is busy wait and go in the next group", async () => {
    let release: () => void = () => {};
    const busy = new Promise<void>((resolve) => {
      release = resolve;
    });
    let turns = 0;
    const queued = new GroupCommit(writer, async (run) => {
      turns++;
      if (turns === 1) await busy; // the query builder holds the connection
      run();
    });
    const first = queued.run(insert("a", 1));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [queued.run(insert("b", 2)), queued.run(insert("c", 3))];
    release();
    await Promise.all([first, ...later]);
    assert.deepEqual(
      committed().map((row) => (row as { k: string }).k),
      ["a", "b", "c"],
    );
    assert.ok(turns <= 2, `${turns} turns for three writes`);
  });

  test("when the connection cannot be had, the waiting writes fail and nothing runs", async () => {
    const closed = new GroupCommit(writer, async () => {
      throw new Error("the database is closed");
    });
    await assert.rejects(closed.run(insert("a", 1)), /closed/);
    assert.deepEqual(committed(), []);
  });
});
