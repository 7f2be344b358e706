import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { sql } from "kysely";
import { openStorage } from "./database.js";

// SQLite only: checkpoints are how a WAL database's writes reach its main file. The writer's own
// automatic checkpoint is set far beyond what this test writes, so the main file grows only if
// the worker thread checkpoints.

test("the worker thread checkpoints the WAL into the database file; the writer does not", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-checkpoint-"));
  const file = path.join(dir, "vas.db");
  const storage = openStorage({ dialect: "sqlite", file });
  try {
    const pages = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(storage.db);
    assert.ok((pages.rows[0]?.wal_autocheckpoint ?? 0) >= 10_000, "the writer's backstop only");
    await sql`create table filler (n integer primary key, payload text not null)`.execute(storage.db);
    const before = statSync(file).size;
    assert.equal(storage.dialect, "sqlite");
    await storage.group.run((db) => {
      const insert = db.prepare("insert into filler (payload) values (?)");
      for (let i = 0; i < 400; i++) insert.run("x".repeat(1000));
    });
    const deadline = Date.now() + 5_000;
    while (statSync(file).size <= before + 300_000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(
      statSync(file).size > before + 300_000,
      `the database file grew from ${before} to ${statSync(file).size}`,
    );
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
