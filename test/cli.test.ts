import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { sign, signRequestV2 } from "../src/auth/signature.js";
import { runCli, USAGE } from "../src/cli/run.js";
import { openServices } from "../src/compose.js";
import { openStorage } from "../src/storage/database.js";
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from "./helpers/databases.js";
import { testConfig } from "./helpers/harness.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MASTER_KEY_HEX = "4f1c2e7a9b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let env: NodeJS.ProcessEnv;
let caseCounter = 0;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "vas-cli-"));
  env = { DATABASE_URL: `sqlite:${dir}/vas.db`, DATA_DIR: dir, VAS_MASTER_KEY: MASTER_KEY_HEX };
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, collecting what it writes. */
async function vas(argv: string[], runEnv: NodeJS.ProcessEnv = env): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env: runEnv,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** Runs a command that must succeed; returns its stdout parsed as one JSON value. */
async function vasJson<T>(argv: string[], runEnv: NodeJS.ProcessEnv = env): Promise<T> {
  const run = await vas(argv, runEnv);
  assert.equal(run.code, 0, `vas ${argv.join(" ")} failed: ${run.stderr}`);
  assert.ok(run.stdout.endsWith("\n"), "JSON output ends with a newline");
  assert.equal(run.stdout.trimEnd().split("\n").length, 1, `expected one line of JSON, got:\n${run.stdout}`);
  return JSON.parse(run.stdout) as T;
}

interface Created {
  businessId: string;
  name: string;
  verificationStatus: string;
  apiKey: string;
  secretKey: string;
}

interface KeySummary {
  keyId: string;
  prefix: string;
  status: string;
  minSignatureVersion: number;
  createdAt: string;
  updatedAt: string;
}

interface BusinessRow {
  businessId: string;
  name: string;
  verificationStatus: string;
  accounts: number;
  createdAt: string;
}

const createBusiness = (name: string, ...extra: string[]) =>
  vasJson<Created>(["business", "create", "--name", name, ...extra, "--json"]);

async function keyStatusOf(businessId: string): Promise<KeySummary | undefined> {
  return (await vasJson<KeySummary[]>(["key", "list", businessId, "--json"]))[0];
}

async function keyStatus(businessId: string, apiKey: string): Promise<string | undefined> {
  const keys = await vasJson<KeySummary[]>(["key", "list", businessId, "--json"]);
  return keys.find((key) => key.prefix === apiKey.slice(0, key.prefix.length))?.status;
}

/** A fresh directory with its own database and no master key anywhere. */
function freshEnv(): { dir: string; env: NodeJS.ProcessEnv } {
  const caseDir = path.join(dir, `case-${++caseCounter}`);
  return { dir: caseDir, env: { DATABASE_URL: `sqlite:${caseDir}/vas.db`, DATA_DIR: caseDir } };
}

describe("vas business create", () => {
  test("--json prints exactly one JSON object with the new business and its key pair", async () => {
    const run = await vas(["business", "create", "--name", "Acme Ltd", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout.trimEnd().split("\n").length, 1);
    const created = JSON.parse(run.stdout) as Created;
    assert.deepEqual(Object.keys(created).sort(), [
      "apiKey",
      "businessId",
      "name",
      "secretKey",
      "verificationStatus",
    ]);
    assert.match(created.businessId, UUID);
    assert.equal(created.name, "Acme Ltd");
    assert.equal(created.verificationStatus, "not_submitted");
    assert.match(created.apiKey, /^vak_[A-Za-z0-9_-]{32}$/);
    assert.match(created.secretKey, /^vsk_[A-Za-z0-9_-]{43}$/);
  });

  test("two businesses get different ids and keys", async () => {
    const a = await createBusiness("Twin");
    const b = await createBusiness("Twin");
    assert.notEqual(a.businessId, b.businessId);
    assert.notEqual(a.apiKey, b.apiKey);
    assert.notEqual(a.secretKey, b.secretKey);
  });

  test("--status sets the initial verification status", async () => {
    for (const status of ["completed", "in_progress", "rejected", "not_submitted"]) {
      const created = await createBusiness(`Status ${status}`, "--status", status);
      assert.equal(created.verificationStatus, status);
    }
  });

  test("the name is trimmed", async () => {
    assert.equal((await createBusiness("  Padded  ")).name, "Padded");
  });

  test("without --json prints the keys for a human, once", async () => {
    const run = await vas(["business", "create", "--name", "Human"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Created business "Human" \([0-9a-f-]{36}\), status not_submitted/);
    assert.match(run.stdout, /API key: {4}vak_\S+/);
    assert.match(run.stdout, /Secret key: vsk_\S+/);
    assert.match(run.stdout, /not shown again/);
  });

  test("the name is NFC-normalised: what the list shows is what create printed", async () => {
    const created = await createBusiness("Cafe\u0301 Ltd");
    assert.equal(created.name, "Caf\u00e9 Ltd");
    const listed = (await vasJson<BusinessRow[]>(["business", "list", "--json"])).find(
      (row) => row.businessId === created.businessId,
    );
    assert.equal(listed?.name, created.name);
  });

  const refusedNames = [
    ["", "business name must be a non-empty string"],
    ["   ", "business name must be a non-empty string"],
    ["Acme\u001b[31m Ltd", "business name must not contain control characters"],
    ["Acme\nLtd", "business name must not contain control characters"],
    ["Acme\r\u001b[2K Evil", "business name must not contain control characters"],
    ["Acme \u202edtL", "business name must not contain bidirectional control characters"],
    ["\u200b\u3164", "business name must contain a visible character"],
    ["b".repeat(101), "business name must be at most 100 characters"],
  ] as const;
  for (const [name, message] of refusedNames) {
    test(`the name ${JSON.stringify(name.slice(0, 20))} is a usage error: exit 2, nothing written`, async () => {
      const fresh = freshEnv();
      const run = await vas(["business", "create", "--name", name, "--json"], fresh.env);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      assert.ok(run.stderr.includes(message), run.stderr);
      assert.match(run.stderr, /vas business create --help/);
      assert.ok(!run.stderr.includes("\u001b") && !run.stderr.includes("\u202e"), "the name is not echoed");
      assert.equal(existsSync(fresh.dir), false, "no database, no master key");
    });
  }
});

describe("vas business set-status and list", () => {
  test("set-status moves through the lifecycle that list --json shows, and history records it", async () => {
    const created = await createBusiness("Verify Me");
    const skipped = await vas(["business", "set-status", created.businessId, "completed"]);
    assert.equal(skipped.code, 1, "not_submitted cannot jump to completed");
    assert.match(
      skipped.stderr,
      /cannot go from not_submitted to completed; from not_submitted it can go to in_progress \(submit\)/,
    );
    assert.equal((await vas(["business", "set-status", created.businessId, "in_progress"])).code, 0);
    const set = await vas(["business", "set-status", created.businessId, "completed"]);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, new RegExp(`${created.businessId} is now completed \\(was in_progress\\)`));

    const rows = await vasJson<BusinessRow[]>(["business", "list", "--json"]);
    const row = rows.find((r) => r.businessId === created.businessId);
    assert.ok(row, "the business is listed");
    assert.deepEqual(Object.keys(row).sort(), [
      "accounts",
      "businessId",
      "createdAt",
      "name",
      "verificationStatus",
    ]);
    assert.equal(row.name, "Verify Me");
    assert.equal(row.verificationStatus, "completed");
    assert.equal(row.accounts, 0);
    assert.ok(!Number.isNaN(Date.parse(row.createdAt)));

    const noReason = await vas(["business", "set-status", created.businessId, "rejected"]);
    assert.equal(noReason.code, 1);
    assert.match(noReason.stderr, /a reason is required to suspend/);
    const suspended = await vas([
      "business",
      "set-status",
      created.businessId,
      "rejected",
      "--reason",
      "CAC certificate expired",
    ]);
    assert.equal(suspended.code, 0, suspended.stderr);
    const again = await vasJson<BusinessRow[]>(["business", "list", "--json"]);
    assert.equal(again.find((r) => r.businessId === created.businessId)?.verificationStatus, "rejected");

    const history = await vasJson<
      Array<{ from: string; to: string; reason: string | null; actor: { type: string } }>
    >(["business", "history", created.businessId, "--json"]);
    assert.deepEqual(
      history.map((h) => [h.from, h.to, h.reason, h.actor.type]),
      [
        ["not_submitted", "in_progress", null, "cli"],
        ["in_progress", "completed", null, "cli"],
        ["completed", "rejected", "CAC certificate expired", "cli"],
      ],
    );
    const table = await vas(["business", "history", created.businessId]);
    assert.match(table.stdout, /^at\s+from\s+to\s+by\s+reason\n/);
    assert.match(table.stdout, /completed\s+rejected\s+cli\s+CAC certificate expired/);
  });

  test("list --json never shows keys", async () => {
    const created = await createBusiness("No Keys In List");
    const run = await vas(["business", "list", "--json"]);
    assert.equal(run.code, 0);
    assert.ok(!run.stdout.includes(created.apiKey));
    assert.ok(!run.stdout.includes(created.secretKey));
  });

  test("list without --json prints a table with a header row", async () => {
    const created = await createBusiness("Tabled");
    const run = await vas(["business", "list"]);
    assert.equal(run.code, 0, run.stderr);
    const [header, ...lines] = run.stdout.trimEnd().split("\n");
    assert.match(header ?? "", /^businessId\s+name\s+verificationStatus\s+accounts\s+createdAt$/);
    assert.ok(lines.some((line) => line.startsWith(created.businessId) && line.includes("Tabled")));
  });

  test("list on an empty database says (none)", async () => {
    const fresh = freshEnv();
    const run = await vas(["business", "list"], { ...fresh.env, VAS_MASTER_KEY: MASTER_KEY_HEX });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "(none)\n");
    assert.deepEqual(
      await vasJson<unknown[]>(["business", "list", "--json"], {
        ...fresh.env,
        VAS_MASTER_KEY: MASTER_KEY_HEX,
      }),
      [],
    );
  });

  test("set-status of an unknown business exits 1 with a message", async () => {
    const run = await vas(["business", "set-status", MISSING_ID, "completed"]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, new RegExp(`no business with id ${MISSING_ID}`));
  });
});

describe("vas key", () => {
  test("key create --json prints exactly {keyId, apiKey, secretKey}, a new pair", async () => {
    const created = await createBusiness("Rotating");
    const pair = await vasJson<{ keyId: string; apiKey: string; secretKey: string }>([
      "key",
      "create",
      created.businessId,
      "--json",
    ]);
    assert.deepEqual(Object.keys(pair).sort(), ["apiKey", "keyId", "secretKey"]);
    assert.match(pair.keyId, UUID);
    assert.match(pair.apiKey, /^vak_/);
    assert.match(pair.secretKey, /^vsk_/);
    assert.notEqual(pair.apiKey, created.apiKey);
    assert.notEqual(pair.secretKey, created.secretKey);
  });

  test("key list --json shows both keys with their statuses, never a secret or a whole API key", async () => {
    const created = await createBusiness("Two Keys");
    const second = await vasJson<{ apiKey: string; secretKey: string }>([
      "key",
      "create",
      created.businessId,
      "--json",
    ]);
    const run = await vas(["key", "list", created.businessId, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const keys = JSON.parse(run.stdout) as KeySummary[];
    assert.equal(keys.length, 2);
    for (const key of keys) {
      assert.deepEqual(Object.keys(key).sort(), [
        "createdAt",
        "keyId",
        "lastUsedAt",
        "minSignatureVersion",
        "prefix",
        "status",
        "updatedAt",
      ]);
      assert.equal(key.status, "active");
      assert.equal(key.minSignatureVersion, 1);
      assert.match(key.keyId, UUID);
    }
    assert.deepEqual(
      keys.map((k) => k.prefix).sort(),
      [created.apiKey.slice(0, 12), second.apiKey.slice(0, 12)].sort(),
    );
    for (const secret of [created.apiKey, created.secretKey, second.apiKey, second.secretKey]) {
      assert.ok(!run.stdout.includes(secret), "a secret leaked into key list --json");
    }
    const table = await vas(["key", "list", created.businessId]);
    assert.equal(table.code, 0);
    for (const secret of [created.apiKey, created.secretKey, second.apiKey, second.secretKey]) {
      assert.ok(!table.stdout.includes(secret), "a secret leaked into key list");
    }
    assert.match(table.stdout, /^keyId\s+prefix\s+status\s+minSignatureVersion\s+createdAt\s+updatedAt\n/);
  });

  test("deactivate, activate and revoke change the key's status", async () => {
    const created = await createBusiness("Lifecycle");
    const other = await vasJson<{ apiKey: string }>(["key", "create", created.businessId, "--json"]);

    const deactivated = await vas(["key", "deactivate", created.apiKey]);
    assert.equal(deactivated.code, 0, deactivated.stderr);
    assert.match(deactivated.stdout, /is now inactive/);
    // The confirmation names the key by its prefix only.
    assert.ok(!deactivated.stdout.includes(created.apiKey));
    assert.equal(await keyStatus(created.businessId, created.apiKey), "inactive");
    // The business's other key is untouched.
    assert.equal(await keyStatus(created.businessId, other.apiKey), "active");

    assert.equal((await vas(["key", "activate", created.apiKey])).code, 0);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "active");

    const revoked = await vas(["key", "revoke", created.apiKey]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /is now revoked/);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "revoked");
    assert.equal(await keyStatus(created.businessId, other.apiKey), "active");
  });

  test("a revoked key cannot be activated or deactivated: exit 1 with a message", async () => {
    const created = await createBusiness("Revoked For Good");
    assert.equal((await vas(["key", "revoke", created.apiKey])).code, 0);
    for (const action of ["activate", "deactivate"]) {
      const run = await vas(["key", action, created.apiKey]);
      assert.equal(run.code, 1, `key ${action} of a revoked key`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /revoked/);
    }
    assert.equal(await keyStatus(created.businessId, created.apiKey), "revoked");
  });

  test("revoking a revoked key again succeeds and changes nothing", async () => {
    const created = await createBusiness("Revoke Twice");
    assert.equal((await vas(["key", "revoke", created.apiKey])).code, 0);
    assert.equal((await vas(["key", "revoke", created.apiKey])).code, 0);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "revoked");
  });

  test("an unknown API key exits 1", async () => {
    for (const action of ["activate", "deactivate", "revoke"]) {
      const run = await vas(["key", action, "vak_doesnotexist"]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /no such API key/);
    }
  });

  test("the secret key is not accepted where the API key is expected: a usage error that does not echo it", async () => {
    const created = await createBusiness("Wrong Half");
    const run = await vas(["key", "revoke", created.secretKey]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /that is a secret key/);
    assert.ok(!run.stderr.includes(created.secretKey.slice(4)), "the secret key was echoed");
    assert.equal(await keyStatus(created.businessId, created.apiKey), "active");
  });

  test("key create and key list for an unknown business exit 1", async () => {
    for (const argv of [
      ["key", "create", MISSING_ID, "--json"],
      ["key", "list", MISSING_ID, "--json"],
    ]) {
      const run = await vas(argv);
      assert.equal(run.code, 1, argv.join(" "));
      assert.equal(run.stdout, "");
      assert.match(run.stderr, new RegExp(`no business with id ${MISSING_ID}`));
    }
  });
});

describe("naming a key by its id, its prefix or the whole key", () => {
  const keysOf = (businessId: string) => vasJson<KeySummary[]>(["key", "list", businessId, "--json"]);

  test("deactivate, activate and revoke accept the key id and the prefix that key list shows", async () => {
    const created = await createBusiness("Named Keys");
    const other = await vasJson<{ keyId: string; apiKey: string }>([
      "key",
      "create",
      created.businessId,
      "--json",
    ]);
    const [first] = (await keysOf(created.businessId)).filter((key) => created.apiKey.startsWith(key.prefix));
    assert.ok(first);
    assert.equal(first.prefix.length, 12);

    const byId = await vas(["key", "deactivate", first.keyId]);
    assert.equal(byId.code, 0, byId.stderr);
    assert.equal(byId.stdout, `Key ${first.prefix}... (${first.keyId}) is now inactive\n`);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "inactive");
    assert.equal(await keyStatus(created.businessId, other.apiKey), "active");

    // The id as some tools print it, in capitals.
    assert.equal((await vas(["key", "activate", first.keyId.toUpperCase()])).code, 0);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "active");

    const byPrefix = await vas(["key", "deactivate", first.prefix]);
    assert.equal(byPrefix.code, 0, byPrefix.stderr);
    assert.match(byPrefix.stdout, /is now inactive/);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "inactive");
    assert.equal((await vas(["key", "activate", first.prefix])).code, 0);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "active");

    const revoked = await vas(["key", "revoke", first.prefix]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(await keyStatus(created.businessId, created.apiKey), "revoked");
    assert.equal(await keyStatus(created.businessId, other.apiKey), "active");
    // Revocation stays final whichever way the key is named.
    for (const name of [first.keyId, first.prefix, created.apiKey]) {
      const run = await vas(["key", "activate", name]);
      assert.equal(run.code, 1, name);
      assert.match(run.stderr, /revoked/);
    }
    assert.equal((await vas(["key", "revoke", other.keyId])).code, 0);
    assert.deepEqual(
      (await keysOf(created.businessId)).map((key) => key.status),
      ["revoked", "revoked"],
    );
  });

  test("require-signature-v2 accepts the id, the prefix and the whole key", async () => {
    const created = await createBusiness("Signature Versions");
    const [key] = await keysOf(created.businessId);
    assert.ok(key);
    for (const [name, off, expected] of [
      [key.prefix, false, 2],
      [key.keyId, true, 1],
      [created.apiKey, false, 2],
      [key.prefix, true, 1],
    ] as const) {
      const run = await vas(["key", "require-signature-v2", name, ...(off ? ["--off"] : [])]);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.stdout.startsWith(`Key ${key.prefix}... (${key.keyId}) `), run.stdout);
      assert.ok(!run.stdout.includes(created.apiKey), "the whole key is never printed back");
      assert.equal((await keysOf(created.businessId))[0]?.minSignatureVersion, expected);
    }
  });

  test("an unknown id, prefix or key exits 1 saying which", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["key", "revoke", MISSING_ID], new RegExp(`no API key with id ${MISSING_ID}`)],
      [["key", "deactivate", "vak_00000000"], /no API key with prefix vak_00000000/],
      [["key", "activate", `vak_${"x".repeat(32)}`], /no such API key/],
      [["key", "require-signature-v2", MISSING_ID], new RegExp(`no API key with id ${MISSING_ID}`)],
      [["key", "require-signature-v2", "vak_00000000", "--off"], /no API key with prefix vak_00000000/],
    ];
    for (const [argv, message] of cases) {
      const run = await vas(argv);
      assert.equal(run.code, 1, `${argv.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, message);
    }
  });

  test("a prefix two keys share is refused (exit 1) listing both ids; nothing changes", async () => {
    const fresh = freshEnv();
    const runEnv = { ...fresh.env, VAS_MASTER_KEY: MASTER_KEY_HEX };
    const a = await vasJson<Created>(["business", "create", "--name", "Collide A", "--json"], runEnv);
    const b = await vasJson<Created>(["business", "create", "--name", "Collide B", "--json"], runEnv);
    const [keyA] = await vasJson<KeySummary[]>(["key", "list", a.businessId, "--json"], runEnv);
    const [keyB] = await vasJson<KeySummary[]>(["key", "list", b.businessId, "--json"], runEnv);
    assert.ok(keyA && keyB);
    // Prefixes are 48 random bits: a collision cannot be made through the CLI, so write one.
    const storage = openStorage({ dialect: "sqlite", file: path.join(fresh.dir, "vas.db") });
    try {
      await storage.db
        .updateTable("api_keys")
        .set({ key_prefix: keyA.prefix })
        .where("id", "=", keyB.keyId)
        .execute();
    } finally {
      await storage.close();
    }

    for (const argv of [
      ["key", "revoke", keyA.prefix],
      ["key", "deactivate", keyA.prefix],
      ["key", "require-signature-v2", keyA.prefix],
    ]) {
      const run = await vas(argv, runEnv);
      assert.equal(run.code, 1, `${argv.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, new RegExp(`the prefix ${keyA.prefix} is ambiguous: 2 keys share it`));
      assert.ok(run.stderr.includes(keyA.keyId) && run.stderr.includes(keyB.keyId), run.stderr);
      assert.match(run.stderr, /by its id/);
    }
    for (const business of [a, b]) {
      const [key] = await vasJson<KeySummary[]>(["key", "list", business.businessId, "--json"], runEnv);
      assert.deepEqual([key?.status, key?.minSignatureVersion], ["active", 1]);
    }
    // The id and the whole key still name each one exactly.
    assert.equal((await vas(["key", "revoke", keyB.keyId], runEnv)).code, 0);
    assert.equal((await vas(["key", "deactivate", a.apiKey], runEnv)).code, 0);
    const statuses = await Promise.all(
      [a, b].map(
        async (business) =>
          (await vasJson<KeySummary[]>(["key", "list", business.businessId, "--json"], runEnv))[0]?.status,
      ),
    );
    assert.deepEqual(statuses, ["inactive", "revoked"]);
  });
});

describe("bad arguments exit 2 with a message on stderr", () => {
  const cases: Array<{ argv: string[]; message: RegExp }> = [
    { argv: ["frobnicate"], message: /unknown command "frobnicate"/ },
    { argv: ["business", "delete", "x"], message: /unknown command "business delete"/ },
    { argv: ["key", "rotate", "x"], message: /unknown command "key rotate"/ },
    { argv: ["business", "create"], message: /--name is required/ },
    { argv: ["business", "create", "--json"], message: /--name is required/ },
    {
      argv: ["business", "create", "--name", "X", "--status", "verified"],
      message: /unknown status "verified"/,
    },
    { argv: ["business", "create", "--name", "X", "extra"], message: /expected no positional arguments/ },
    { argv: ["business", "create", "--name"], message: /--name/ },
    { argv: ["business", "create", "--name", "X", "--bogus"], message: /--bogus/ },
    { argv: ["business", "set-status", MISSING_ID], message: /expected <businessId> <status>/ },
    {
      argv: ["business", "set-status", MISSING_ID, "completed", "x"],
      message: /expected <businessId> <status>/,
    },
    { argv: ["business", "set-status", MISSING_ID, "approved"], message: /unknown status "approved"/ },
    { argv: ["business", "list", "extra"], message: /expected no positional arguments/ },
    { argv: ["business", "list", "--all"], message: /--all/ },
    { argv: ["key", "create"], message: /expected <businessId>/ },
    { argv: ["key", "create", "a", "b"], message: /expected <businessId>/ },
    { argv: ["key", "list"], message: /expected <businessId>/ },
    { argv: ["key", "list", MISSING_ID, "--verbose"], message: /--verbose/ },
    { argv: ["key", "revoke"], message: /expected <key>/ },
    { argv: ["key", "activate", "a", "b"], message: /expected <key>/ },
    { argv: ["key", "deactivate", "vak_x", "--json"], message: /--json/ },
    { argv: ["key", "require-signature-v2"], message: /expected <key>/ },
    { argv: ["business", "bogus"], message: /unknown command "business bogus"/ },
    { argv: ["business", "bogus", "--help"], message: /unknown command "business bogus"/ },
    { argv: ["secrets", "rotate"], message: /unknown command "secrets rotate"/ },
    { argv: ["business", "create", "--name", "X", "--status"], message: /--status/ },
    // A value that cannot be what is asked for is refused like a missing one.
    { argv: ["business", "set-status", "acme", "completed"], message: /<businessId> must be a UUID/ },
    { argv: ["key", "create", "acme"], message: /<businessId> must be a UUID/ },
    { argv: ["key", "list", `${MISSING_ID}x`], message: /<businessId> must be a UUID/ },
    { argv: ["key", "revoke", "acme"], message: /expected a key id \(UUID\), a key prefix/ },
    { argv: ["key", "activate", "12345678"], message: /expected a key id/ },
    { argv: ["key", "require-signature-v2", "no-such-key"], message: /expected a key id/ },
    { argv: ["key", "require-signature-v2", "vak_x", "--on"], message: /--on/ },
    { argv: ["secrets", "rotate-master-key", "extra"], message: /expected no positional arguments/ },
  ];
  for (const { argv, message } of cases) {
    test(`vas ${argv.join(" ")}`, async () => {
      const run = await vas(argv);
      assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, message);
    });
  }

  test("usage errors point at the command's --help", async () => {
    const run = await vas(["business", "create"]);
    assert.match(run.stderr, /Run "vas business create --help" for usage/);
  });

  test("an unknown command prints the usage", async () => {
    const run = await vas(["frobnicate"]);
    assert.ok(run.stderr.includes(USAGE));
  });

  test("an unknown command of a known group prints that group's usage", async () => {
    const run = await vas(["key", "rotate", "x"]);
    assert.match(run.stderr, /vas key revoke <key>/);
    assert.ok(!run.stderr.includes("vas business create"), run.stderr);
  });

  test("a bad status, business id or key is refused before anything is written (no database, no master key)", async () => {
    for (const argv of [
      ["business", "create", "--name", "X", "--status", "bogus"],
      ["business", "set-status", MISSING_ID, "bogus"],
      ["business", "set-status", "not-a-uuid", "completed"],
      ["key", "create", "not-a-uuid"],
      ["key", "list", "not-a-uuid"],
      ["key", "revoke", "vsk_secret"],
      ["key", "require-signature-v2", "nonsense"],
    ]) {
      const fresh = freshEnv();
      const run = await vas(argv, fresh.env);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(existsSync(fresh.dir), false, `${argv.join(" ")} wrote ${fresh.dir}`);
    }
  });

  test("a bad status is a usage error (2) even when the database cannot be opened", async () => {
    const run = await vas(["business", "create", "--name", "X", "--status", "bogus"], {
      DATABASE_URL: "mysql://nowhere",
      DATA_DIR: path.join(dir, "unused"),
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /unknown status "bogus"/);
  });
});

describe("vas --help", () => {
  const commands = [
    "business create",
    "business set-status",
    "business list",
    "key create",
    "key deactivate",
    "key activate",
    "key revoke",
    "key list",
    "key require-signature-v2",
    "secrets rotate-master-key",
    "request",
  ];

  for (const argv of [["--help"], ["-h"], ["help"], []]) {
    test(`vas ${argv.join(" ")} exits 0 and prints the usage on stdout`, async () => {
      const run = await vas(argv);
      assert.equal(run.code, 0);
      assert.equal(run.stdout, USAGE);
      assert.equal(run.stderr, "");
    });
  }

  test("documents every command, its arguments and the exit codes", () => {
    for (const command of commands)
      assert.ok(USAGE.includes(`vas ${command}`), `${command} is not documented`);
    assert.match(USAGE, /vas business create --name <name> \[--status <status>\] \[--json\]/);
    assert.match(USAGE, /vas business set-status <businessId> <status>/);
    assert.match(USAGE, /vas key create <businessId>/);
    assert.match(USAGE, /vas key list <businessId>/);
    for (const action of ["deactivate", "activate", "revoke"])
      assert.match(USAGE, new RegExp(`vas key ${action} <key>`));
    assert.match(USAGE, /vas key require-signature-v2 <key> \[--off\]/);
    assert.match(
      USAGE,
      /<key>: the key's id, its prefix as key list shows it \(vak_ and 8 characters\), or the whole\n\s+API key/,
    );
    assert.match(USAGE, /vas request <METHOD> <path> \[--data <json>\]/);
    for (const status of ["completed", "in_progress", "rejected", "not_submitted"])
      assert.ok(USAGE.includes(status));
    assert.match(USAGE, /DATABASE_URL/);
    assert.match(USAGE, /VAS_MASTER_KEY/);
    assert.match(USAGE, /0 success, 1 the operation failed, 2 bad arguments/);
  });

  for (const command of commands) {
    test(`every documented command exists: vas ${command} --help exits 0 with its own help, without touching the database`, async () => {
      const fresh = freshEnv();
      for (const argv of [
        [...command.split(" "), "--help"],
        [...command.split(" "), "-h"],
        ["help", ...command.split(" ")],
      ]) {
        const run = await vas(argv, fresh.env);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stderr, "");
        // The same entry as in the whole usage, and no other command's.
        const entry = run.stdout.slice(run.stdout.indexOf(`  vas ${command}`)).split("\n\n")[0] as string;
        assert.ok(entry.startsWith(`  vas ${command}`), run.stdout);
        assert.ok(USAGE.includes(entry), `${argv.join(" ")}: its help is not the one in vas --help`);
        for (const other of commands.filter((name) => name !== command && !name.startsWith(`${command} `)))
          assert.ok(!run.stdout.includes(`vas ${other} `), `${argv.join(" ")} shows ${other}`);
        assert.match(run.stdout, /0 success, 1 the operation failed, 2 bad arguments/);
      }
      assert.equal(existsSync(fresh.dir), false);
    });
  }

  const groups: Record<string, string[]> = {
    business: ["business create", "business set-status", "business list"],
    key: [
      "key create",
      "key deactivate",
      "key activate",
      "key revoke",
      "key list",
      "key require-signature-v2",
    ],
    secrets: ["secrets rotate-master-key"],
  };
  for (const [group, members] of Object.entries(groups)) {
    test(`vas ${group}, vas ${group} --help and vas help ${group} exit 0 and list the ${group} commands only`, async () => {
      const fresh = freshEnv();
      for (const argv of [[group], [group, "--help"], [group, "-h"], [group, "help"], ["help", group]]) {
        const run = await vas(argv, fresh.env);
        assert.equal(run.code, 0, `vas ${argv.join(" ")}: ${run.stderr}`);
        assert.equal(run.stderr, "");
        for (const member of members) assert.ok(run.stdout.includes(`  vas ${member}`), `${member} missing`);
        for (const other of commands.filter((name) => !members.includes(name)))
          assert.ok(!run.stdout.includes(`  vas ${other} `), `vas ${argv.join(" ")} shows ${other}`);
      }
      assert.equal(existsSync(fresh.dir), false);
    });
  }
});

describe("configuration and the master key", () => {
  test("a bad DATABASE_URL exits 1 naming the variable", async () => {
    const run = await vas(["business", "list"], { DATABASE_URL: "mysql://x", DATA_DIR: dir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /DATABASE_URL/);
  });

  test("without VAS_MASTER_KEY, the first run generates <DATA_DIR>/master.key and says so on stderr only", async () => {
    const fresh = freshEnv();
    const first = await vas(["business", "create", "--name", "Keyless", "--json"], fresh.env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /generated a new master key/);
    assert.ok(first.stderr.includes(path.join(fresh.dir, "master.key")));
    // stdout is still exactly the JSON object, so scripts can parse it.
    const created = JSON.parse(first.stdout) as Created;
    assert.equal(created.name, "Keyless");
    assert.ok(existsSync(path.join(fresh.dir, "master.key")));

    // The next run reads the same key and can work on the same database.
    const second = await vas(["key", "create", created.businessId, "--json"], fresh.env);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stderr, "");
  });

  test("a different master key is refused on an existing database", async () => {
    const fresh = freshEnv();
    const keyA = { ...fresh.env, VAS_MASTER_KEY: MASTER_KEY_HEX };
    assert.equal((await vas(["business", "create", "--name", "A", "--json"], keyA)).code, 0);
    const keyB = { ...fresh.env, VAS_MASTER_KEY: "ab".repeat(32) };
    const run = await vas(["business", "list", "--json"], keyB);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /master key/i);
  });
});

describe("vas secrets rotate-master-key", () => {
  test("without VAS_MASTER_KEY it refuses (exit 2) and neither reads nor writes anything", async () => {
    const fresh = freshEnv();
    const run = await vas(["secrets", "rotate-master-key"], fresh.env);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /VAS_MASTER_KEY is not set: set it to the new master key/);
    assert.match(run.stderr, /nothing was changed/);
    assert.equal(existsSync(fresh.dir), false, "no database, no generated master.key");
  });

  test("without VAS_MASTER_KEY it refuses even when <DATA_DIR>/master.key exists", async () => {
    const fresh = freshEnv();
    // The first run creates the database and the key file the CLI falls back to.
    const created = await vasJson<Created>(["business", "create", "--name", "Key File", "--json"], fresh.env);
    const keyFile = readFileSync(path.join(fresh.dir, "master.key"), "utf8");
    for (const runEnv of [fresh.env, { ...fresh.env, VAS_MASTER_KEY: "" }]) {
      const run = await vas(["secrets", "rotate-master-key", "--json"], runEnv);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /VAS_MASTER_KEY is not set/);
    }
    assert.equal(readFileSync(path.join(fresh.dir, "master.key"), "utf8"), keyFile);
    // The data still opens with the key file, as before.
    const keys = await vasJson<KeySummary[]>(["key", "list", created.businessId, "--json"], fresh.env);
    assert.equal(keys.length, 1);
  });

  test("with VAS_MASTER_KEY set it runs (the rotation itself: test/key-rotation.test.ts)", async () => {
    const fresh = freshEnv();
    const runEnv = { ...fresh.env, VAS_MASTER_KEY: MASTER_KEY_HEX };
    await vasJson<Created>(["business", "create", "--name", "Rotated", "--json"], runEnv);
    const report = await vasJson<{ resealed: number; alreadyCurrent: number }>(
      ["secrets", "rotate-master-key", "--json"],
      runEnv,
    );
    assert.equal(report.resealed, 0);
    assert.ok(report.alreadyCurrent >= 1);
  });
});

describe("keys at rest and in use", () => {
  test("neither the API key nor the secret key is stored in plaintext", async () => {
    const fresh = freshEnv();
    const runEnv = { ...fresh.env, VAS_MASTER_KEY: MASTER_KEY_HEX };
    const issued: string[] = [];
    const created = await vasJson<Created>(["business", "create", "--name", "At Rest", "--json"], runEnv);
    issued.push(created.apiKey, created.secretKey);
    const second = await vasJson<{ apiKey: string; secretKey: string }>(
      ["key", "create", created.businessId, "--json"],
      runEnv,
    );
    issued.push(second.apiKey, second.secretKey);

    const files = readdirSync(fresh.dir).filter((name) => name.startsWith("vas.db"));
    assert.ok(files.includes("vas.db"), `database files: ${files.join(", ")}`);
    const bytes = Buffer.concat(files.map((name) => readFileSync(path.join(fresh.dir, name))));
    // The rows are really there: the display prefix (12 characters of the API key) is stored.
    assert.ok(
      bytes.includes(Buffer.from(created.apiKey.slice(0, 12))),
      "the key prefix is not in the database",
    );
    for (const secret of issued) {
      assert.ok(
        !bytes.includes(Buffer.from(secret, "utf8")),
        `${secret.slice(0, 4)}... is stored in plaintext`,
      );
      // Not even the random part after the prefix.
      assert.ok(!bytes.includes(Buffer.from(secret.slice(12), "utf8")));
    }
  });

  test("the printed key pair authenticates against the service; deactivating it stops that", async () => {
    const created = await createBusiness("Signs Requests", "--status", "completed");
    const masterKey = Buffer.from(MASTER_KEY_HEX, "hex");
    const body = JSON.stringify({ name: "Ada", email: "ada@example.com", bvn: "12345678901" });
    const signedHeaders = (secretKey: string) => {
      const timestamp = String(Date.now());
      return {
        "x-api-key": created.apiKey,
        "x-timestamp": timestamp,
        "x-signature": sign(secretKey, body, timestamp),
      };
    };
    const authenticate = async (headers: Record<string, string>) => {
      const services = await openServices(
        testConfig({ dialect: "sqlite", file: path.join(dir, "vas.db") }, masterKey),
      );
      try {
        return await services.authenticator.authenticate({
          method: "POST",
          url: "/",
          headers,
          bodyForms: () => [body],
          rawBody: Buffer.from(body),
        });
      } finally {
        await services.close();
      }
    };

    const caller = await authenticate(signedHeaders(created.secretKey));
    assert.equal(caller.businessId, created.businessId);
    assert.equal(caller.businessName, "Signs Requests");

    await assert.rejects(authenticate(signedHeaders(`${created.secretKey}x`)), { code: "INVALID_SIGNATURE" });

    assert.equal((await vas(["key", "deactivate", created.apiKey])).code, 0);
    await assert.rejects(authenticate(signedHeaders(created.secretKey)), { code: "INVALID_API_KEY" });

    assert.equal((await vas(["key", "activate", created.apiKey])).code, 0);
    assert.equal((await authenticate(signedHeaders(created.secretKey))).businessId, created.businessId);

    // key require-signature-v2: version 1 is refused with a clear code, version 2 passes; --off undoes it.
    const [key] = await vasJson<KeySummary[]>(["key", "list", created.businessId, "--json"]);
    const required = await vas(["key", "require-signature-v2", key?.keyId as string]);
    assert.equal(required.code, 0, required.stderr);
    assert.match(required.stdout, /now requires signature version 2/);
    assert.equal((await keyStatusOf(created.businessId))?.minSignatureVersion, 2);
    await assert.rejects(authenticate(signedHeaders(created.secretKey)), {
      code: "SIGNATURE_VERSION_REQUIRED",
    });
    const timestamp = String(Date.now());
    const v2 = {
      "x-api-key": created.apiKey,
      "x-timestamp": timestamp,
      "x-signature-version": "2",
      "x-signature": signRequestV2(created.secretKey, { method: "POST", url: "/", timestamp, body }),
    };
    assert.equal((await authenticate(v2)).signatureVersion, 2);
    assert.equal((await vas(["key", "require-signature-v2", key?.keyId as string, "--off"])).code, 0);
    assert.equal((await authenticate(signedHeaders(created.secretKey))).signatureVersion, 1);
    assert.equal((await vas(["key", "require-signature-v2", "no-such-key"])).code, 2);
    assert.equal((await vas(["key", "require-signature-v2", MISSING_ID])).code, 1);

    const suspended = await vas([
      "business",
      "set-status",
      created.businessId,
      "rejected",
      "--reason",
      "audit",
    ]);
    assert.equal(suspended.code, 0, suspended.stderr);
    await assert.rejects(authenticate(signedHeaders(created.secretKey)), { code: "BUSINESS_NOT_VERIFIED" });
  });
});

describe("the real binary", () => {
  /** Spawns `node --import tsx src/cli/main.ts ...` with only the variables the CLI needs. */
  function spawnVas(args: string[], runEnv: NodeJS.ProcessEnv) {
    return spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...runEnv },
      encoding: "utf8",
      // A safeguard against a hung child, not an assertion about speed.
      timeout: 120_000,
    });
  }

  test("business create --json exits 0 and prints the JSON; bad arguments exit non-zero", () => {
    const e2eDir = path.join(dir, "e2e");
    mkdirSync(e2eDir);
    const runEnv = { DATABASE_URL: `sqlite:${e2eDir}/vas.db`, DATA_DIR: e2eDir };

    const ok = spawnVas(["business", "create", "--name", "E2E", "--json"], runEnv);
    assert.equal(ok.error, undefined);
    assert.equal(ok.status, 0, ok.stderr);
    const created = JSON.parse(ok.stdout) as Created;
    assert.equal(created.name, "E2E");
    assert.equal(created.verificationStatus, "not_submitted");
    assert.match(created.businessId, UUID);
    assert.match(created.apiKey, /^vak_/);
    assert.match(created.secretKey, /^vsk_/);
    assert.match(ok.stderr, /generated a new master key/);
    assert.ok(existsSync(path.join(e2eDir, "master.key")));

    const bad = spawnVas(["business", "create", "--json"], runEnv);
    assert.equal(bad.error, undefined);
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, "");
    assert.match(bad.stderr, /--name is required/);

    const unknown = spawnVas(["key", "revoke", "vak_nope"], runEnv);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /no such API key/);
  });
});

describe("on PostgreSQL", { skip: !POSTGRES_AVAILABLE && "PostgreSQL is not answering" }, () => {
  let database: TestDatabase;
  let pgEnv: NodeJS.ProcessEnv;
  before(async () => {
    database = await createTestDatabase("postgres", dir);
    pgEnv = {
      DATABASE_URL: database.location.dialect === "postgres" ? database.location.url : "",
      DATA_DIR: dir,
      VAS_MASTER_KEY: MASTER_KEY_HEX,
    };
  });
  after(() => database.drop());

  test("the same commands manage businesses and keys in a PostgreSQL database", async () => {
    const created = await vasJson<Created>(["business", "create", "--name", "Pg Ltd", "--json"], pgEnv);
    assert.equal((await vas(["business", "set-status", created.businessId, "in_progress"], pgEnv)).code, 0);
    assert.equal((await vas(["business", "set-status", created.businessId, "completed"], pgEnv)).code, 0);
    const businesses = await vasJson<BusinessRow[]>(["business", "list", "--json"], pgEnv);
    assert.deepEqual(
      businesses.map((b) => [b.businessId, b.verificationStatus]),
      [[created.businessId, "completed"]],
    );
    const second = await vasJson<{ apiKey: string; secretKey: string }>(
      ["key", "create", created.businessId, "--json"],
      pgEnv,
    );
    assert.equal((await vas(["key", "revoke", created.apiKey], pgEnv)).code, 0);
    const keys = await vasJson<KeySummary[]>(["key", "list", created.businessId, "--json"], pgEnv);
    assert.deepEqual(keys.map((k) => k.status).sort(), ["active", "revoked"]);
    const secondKey = keys.find((k) => second.apiKey.startsWith(k.prefix));
    assert.equal(secondKey?.status, "active");

    // The prefix and the id name a key on PostgreSQL too; a malformed id never reaches it.
    assert.equal((await vas(["key", "deactivate", secondKey.prefix], pgEnv)).code, 0);
    assert.equal((await vas(["key", "require-signature-v2", secondKey.keyId], pgEnv)).code, 0);
    const after = await vasJson<KeySummary[]>(["key", "list", created.businessId, "--json"], pgEnv);
    const changed = after.find((k) => k.keyId === secondKey.keyId);
    assert.deepEqual([changed?.status, changed?.minSignatureVersion], ["inactive", 2]);
    const unknown = await vas(["key", "activate", MISSING_ID], pgEnv);
    assert.equal(unknown.code, 1, unknown.stderr);
    assert.match(unknown.stderr, /no API key with id/);
    assert.equal((await vas(["key", "list", "not-a-uuid"], pgEnv)).code, 2);
  });
});
