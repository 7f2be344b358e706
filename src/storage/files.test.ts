import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { resolveMasterKey } from "../businesses/master-key.js";
import { openStorage } from "./database.js";
import { migrate } from "./migrate.js";

// Files at rest are the service user's alone, whatever the umask it was started with.

let root: string;
let umask: number;
before(() => {
  root = mkdtempSync(path.join(tmpdir(), "vas-files-"));
  umask = process.umask(0o000); // the worst case: nothing masked
});
after(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

const mode = (file: string) => statSync(file).mode & 0o777;

test("a new SQLite database: its directory 0700, the database, WAL and shared-memory files 0600", async () => {
  const dir = path.join(root, "fresh", "data");
  const file = path.join(dir, "vas.db");
  const storage = openStorage({ dialect: "sqlite", file });
  try {
    await migrate(storage);
    await sql`insert into health_probe (id, checked_at) values (1, 'x')`.execute(storage.db);
    assert.equal(mode(dir), 0o700);
    assert.equal(mode(path.join(root, "fresh")), 0o700, "parents created on the way are private too");
    for (const name of ["vas.db", "vas.db-wal", "vas.db-shm"])
      assert.equal(mode(path.join(dir, name)), 0o600, name);
  } finally {
    await storage.close();
  }
});

test("an existing database left readable by others is made private when opened", async () => {
  const dir = path.join(root, "existing");
  const file = path.join(dir, "vas.db");
  let storage = openStorage({ dialect: "sqlite", file });
  await migrate(storage);
  await storage.close();
  chmodSync(file, 0o644);
  writeFileSync(`${file}-wal`, "");
  chmodSync(`${file}-wal`, 0o666);
  storage = openStorage({ dialect: "sqlite", file });
  try {
    assert.equal(mode(file), 0o600);
    assert.equal(mode(`${file}-wal`), 0o600);
  } finally {
    await storage.close();
  }
});

test("a generated master key: its directory 0700, the key 0600", () => {
  const dir = path.join(root, `keys-${randomBytes(3).toString("hex")}`);
  const result = resolveMasterKey(undefined, dir);
  assert.equal(result.source, "generated");
  assert.equal(mode(dir), 0o700);
  assert.equal(mode(result.file as string), 0o600);
});
