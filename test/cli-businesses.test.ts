import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import {
  type BusinessRow,
  type Created,
  createBusiness,
  freshEnv,
  MASTER_KEY_HEX,
  MISSING_ID,
  UUID,
  vas,
  vasJson,
} from "./helpers/cli-suite.js";

// The admin CLI's business commands, in-process.

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
