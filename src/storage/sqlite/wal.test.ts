import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { sql } from "kysely";
import { openStorage } from "../database.js";

// Another process holds a write transaction on a new database file (still in its rollback
// journal) while the service opens it: SQLite refuses the switch to WAL at once, without
// waiting, and the opening must wait it out rather than fail (CI saw "database is locked" when
// four processes migrated one new file together).
const HOLDER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec("create table held (n integer)");
db.exec("begin immediate");
db.exec("insert into held values (1)");
process.stdout.write("holding\\n");
setTimeout(() => { db.exec("commit"); db.close(); }, 300);
`;

test("opening waits for another process's write on a new file, then switches it to WAL", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-wal-"));
  const file = path.join(dir, "vas.db");
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const holder = spawn(process.execPath, ["-e", HOLDER, driver, file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await once(holder.stdout, "data");
    const storage = openStorage({ dialect: "sqlite", file });
    try {
      const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(storage.db);
      assert.equal(mode.rows[0]?.journal_mode, "wal");
      const rows = await sql<{ n: number }>`select n from held`.execute(storage.db);
      assert.deepEqual(rows.rows, [{ n: 1 }], "the other process's write committed first");
    } finally {
      await storage.close();
    }
  } finally {
    holder.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
