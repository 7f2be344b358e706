import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { MASTER_KEY_FILE, resolveMasterKey } from "./master-key.js";

let root: string;
let counter = 0;
/** A fresh, empty directory under the suite's temporary root. */
const freshDir = () => path.join(root, `case-${++counter}`);

before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "vas-master-key-"));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("resolveMasterKey", () => {
  test("returns the configured key, from the environment, and writes nothing", () => {
    const dir = freshDir();
    const configured = Buffer.alloc(32, 7);
    const result = resolveMasterKey(configured, dir);
    assert.equal(result.source, "environment");
    assert.deepEqual(result.key, configured);
    assert.equal(result.file, undefined);
    assert.throws(() => statSync(dir), { code: "ENOENT" });
  });

  test("with no key configured, generates <dir>/master.key with mode 0600", () => {
    const dir = freshDir();
    const result = resolveMasterKey(undefined, dir);
    const file = path.join(dir, MASTER_KEY_FILE);
    assert.equal(MASTER_KEY_FILE, "master.key");
    assert.equal(result.source, "generated");
    assert.equal(result.file, file);
    assert.equal(result.key.length, 32);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // The file holds the key as 64 hex characters.
    assert.equal(readFileSync(file, "utf8").trim(), result.key.toString("hex"));
    // No temporary file is left behind.
    assert.deepEqual(readdirSync(dir), [MASTER_KEY_FILE]);
  });

  test("creates missing parent directories", () => {
    const dir = path.join(freshDir(), "nested", "deeper");
    assert.equal(resolveMasterKey(undefined, dir).source, "generated");
    assert.equal(statSync(path.join(dir, MASTER_KEY_FILE)).isFile(), true);
  });

  test("a second call reads the same key back from the file", () => {
    const dir = freshDir();
    const first = resolveMasterKey(undefined, dir);
    const second = resolveMasterKey(undefined, dir);
    assert.equal(second.source, "file");
    assert.equal(second.file, path.join(dir, MASTER_KEY_FILE));
    assert.deepEqual(second.key, first.key);
    assert.deepEqual(readdirSync(dir), [MASTER_KEY_FILE]);
  });

  test("two directories get two different keys", () => {
    const a = resolveMasterKey(undefined, freshDir());
    const b = resolveMasterKey(undefined, freshDir());
    assert.notDeepEqual(a.key, b.key);
  });

  test("a configured key wins over an existing file", () => {
    const dir = freshDir();
    const generated = resolveMasterKey(undefined, dir);
    const configured = Buffer.alloc(32, 9);
    const result = resolveMasterKey(configured, dir);
    assert.equal(result.source, "environment");
    assert.deepEqual(result.key, configured);
    assert.notDeepEqual(result.key, generated.key);
  });

  test("reads a key file written by an operator (hex, upper case, base64)", () => {
    const key = Buffer.alloc(32, 0xab);
    for (const text of [
      key.toString("hex"),
      `${key.toString("hex").toUpperCase()}\n`,
      key.toString("base64"),
    ]) {
      const dir = freshDir();
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, MASTER_KEY_FILE), text, { mode: 0o600 });
      const result = resolveMasterKey(undefined, dir);
      assert.equal(result.source, "file");
      assert.deepEqual(result.key, key);
    }
  });

  for (const [label, content] of [
    ["garbage", "not a key\n"],
    ["a truncated key", `${"ab".repeat(31)}\n`],
    ["an empty file", ""],
  ] as const) {
    test(`a corrupt key file (${label}) throws a clear error naming the file`, () => {
      const dir = freshDir();
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, MASTER_KEY_FILE);
      writeFileSync(file, content, { mode: 0o600 });
      assert.throws(
        () => resolveMasterKey(undefined, dir),
        (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.ok(error.message.includes(file), error.message);
          assert.match(error.message, /32-byte master key/);
          return true;
        },
      );
      // The corrupt file is left alone for the operator to inspect, not silently replaced.
      assert.equal(readFileSync(file, "utf8"), content);
    });
  }
});
