import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { USAGE } from "../src/cli/run.js";
import {
  type BusinessRow,
  type Created,
  dir,
  freshEnv,
  type KeySummary,
  MASTER_KEY_HEX,
  MISSING_ID,
  ROOT,
  UUID,
  vas,
  vasJson,
} from "./helpers/cli-suite.js";
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from "./helpers/databases.js";

// The admin CLI as a whole: arguments, help, configuration and the master key, the real binary.

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
