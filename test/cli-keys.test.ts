import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { sign, signRequestV2 } from "../src/auth/signature.js";
import { openServices } from "../src/compose/services.js";
import { openStorage } from "../src/storage/database.js";
import {
  type Created,
  createBusiness,
  dir,
  freshEnv,
  type KeySummary,
  keyStatus,
  keyStatusOf,
  MASTER_KEY_HEX,
  MISSING_ID,
  UUID,
  vas,
  vasJson,
} from "./helpers/cli-suite.js";
import { testConfig } from "./helpers/harness.js";

// The admin CLI's key commands, and keys at rest and in use, in-process.

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
          body: { raw: Buffer.from(body), value: JSON.parse(body) },
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
