import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type BankServer, startBankServer } from "../src/bank/bank-server.js";
import { AppError } from "../src/errors.js";
import { BANK_PATHS, envelope, RESP_CODE } from "../src/providers/bank-protocol.js";
import { signParams } from "../src/providers/bank-signing.js";
import { HttpBank, type HttpBankOptions } from "../src/providers/http-bank.js";
import { runVas } from "./helpers/cli.js";

// The HTTP adapter against the Virtual Bank server in this process, over a real port: what the
// service does with each kind of answer. (test/bank-process.test.ts runs the bank as a process
// of its own, with the whole service.)

const APP_ID = "adapter-test";
const request = (reference: string, licenseNumber = "22345678901") => ({
  identityType: "personal" as const,
  licenseNumber,
  virtualAccountName: "Shop/Ada Obi",
  customerName: "Ada Obi",
  email: "ada@example.com",
  accountReference: reference,
});

/** The AppError a call must fail with. */
async function appError(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

describe("the HTTP bank adapter against the Virtual Bank server", () => {
  const client = generateKeyPairSync("rsa", { modulusLength: 2048 });
  let dir: string;
  let server: BankServer;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vas-adapter-"));
    server = await startBankServer({
      port: 0,
      host: "127.0.0.1",
      dataDir: dir,
      appId: APP_ID,
      clientPublicKeyPem: client.publicKey.export({ type: "spki", format: "pem" }) as string,
      notifyUrl: "http://127.0.0.1:9/unused",
      institutionCode: "999240",
      retryBaseMs: 1_000,
      maxAttempts: 1,
      logLevel: "silent",
    });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const adapter = (overrides: Partial<HttpBankOptions> = {}) =>
    new HttpBank({
      url: server.address,
      appId: APP_ID,
      privateKey: client.privateKey,
      bankName: "Virtual Bank",
      timeoutMs: 300,
      createAttempts: 2,
      createBudgetMs: 10_000,
      breakerThreshold: 3,
      breakerHalfOpenMs: 60_000,
      retryDelayMs: 10,
      ...overrides,
    });
  const faults = (body: Record<string, number>) =>
    fetch(`${server.address}/sandbox/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** A call signed by hand, as the protocol describes it. */
  const signedCall = async (
    route: string,
    params: Record<string, unknown>,
    key: KeyObject = client.privateKey,
  ) => {
    const body = { ...params, ...envelope(Date.now()) };
    const response = await fetch(`${server.address}${route}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${APP_ID}`,
        signature: signParams(body, key),
      },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { respCode: string; respMsg: string; data?: Record<string, unknown> };
  };

  test("create, query by reference, disable and enable; the same reference never opens a second account", async () => {
    const bank = adapter();
    const opened = await bank.createVirtualAccount(request("ref-1"));
    assert.match(opened.accountNumber, /^\d{10}$/);
    assert.deepEqual(
      await bank.createVirtualAccount(request("ref-1")),
      opened,
      "the same reference, the same account",
    );
    assert.deepEqual(await bank.findByReference("ref-1"), opened);
    assert.equal(await bank.findByReference("ref-unknown"), undefined);
    await bank.setAccountEnabled(opened.accountNumber, false);
    assert.equal((await bank.findByReference("ref-1"))?.accountNumber, opened.accountNumber);
    const refused = await appError(bank.setAccountEnabled("0000000000", true));
    assert.deepEqual([refused.statusCode, refused.message], [400, "no account 0000000000"]);
  });

  test("the bank's refusal of an identity is the customer's 400, with the bank's words", async () => {
    const refused = await appError(adapter().createVirtualAccount(request("ref-nin", "123")));
    assert.deepEqual(
      [refused.statusCode, refused.message],
      [400, "Invalid BVN: it must be exactly 11 digits"],
    );
  });

  test("the identity call (issue 46): the name on the bank's record, none without a record, 502 when it cannot say", async () => {
    const bank = adapter();
    const ask = (licenseNumber: string, identityType: "personal" | "personal_nin" = "personal") =>
      bank.identityName({ identityType, licenseNumber, customerName: "Ada Obi" });
    // The Virtual Bank keeps no registry: the name sent, but for the sandbox's fixed records.
    assert.equal(await ask("22345678901"), "Ada Obi");
    assert.equal(await ask("00000000002", "personal_nin"), "Sandbox Registry Holder");
    assert.equal(await ask("00000000004"), "Adaeze Ngozi Okafor");
    assert.equal(await ask("00000000001"), undefined, "AC100003: no record");
    assert.equal((await appError(ask("00000000003"))).statusCode, 502);
  });

  test("a bank that refuses the caller (wrong key, wrong app id) is the service's fault: 502, and the breaker stays closed", async () => {
    const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const wrongKey = adapter({ privateKey: stranger });
    for (let i = 0; i < 5; i++) {
      const failed = await appError(wrongKey.createVirtualAccount(request(`ref-key-${i}`)));
      assert.deepEqual([failed.statusCode, failed.code], [502, "PROVIDER_UNAVAILABLE"]);
    }
    assert.equal(wrongKey.breakerState, "closed", "a configuration fault is not an outage");
    const failed = await appError(
      adapter({ appId: "someone-else" }).createVirtualAccount(request("ref-app")),
    );
    assert.equal(failed.statusCode, 502);
    assert.match(String((failed.cause as Error).message), /OPEN_GW_000001/);
  });

  test("the bank refuses stale and unsigned calls", async () => {
    const body = { accountReference: "ref-1", ...envelope(Date.now() - 10 * 60_000) };
    const response = await fetch(`${server.address}${BANK_PATHS.query}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${APP_ID}`,
        signature: signParams(body, client.privateKey),
      },
      body: JSON.stringify(body),
    });
    assert.equal(((await response.json()) as { respCode: string }).respCode, RESP_CODE.expired);
    const tampered = await fetch(`${server.address}${BANK_PATHS.query}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${APP_ID}`, signature: "AAAA" },
      body: JSON.stringify({ accountReference: "ref-1", ...envelope(Date.now()) }),
    });
    assert.equal(((await tampered.json()) as { respCode: string }).respCode, RESP_CODE.badSignature);
  });

  test("delete: the account is gone for payments, and says so when asked", async () => {
    const opened = await adapter().createVirtualAccount(request("ref-delete"));
    const deleted = await signedCall(BANK_PATHS.delete, { virtualAccountNo: opened.accountNumber });
    assert.equal(deleted.respCode, RESP_CODE.success);
    const queried = await signedCall(BANK_PATHS.query, { accountReference: "ref-delete" });
    assert.equal(queried.data?.status, "Deleted");
    const again = await signedCall(BANK_PATHS.delete, { virtualAccountNo: opened.accountNumber });
    assert.equal(again.respCode, RESP_CODE.accountNotFound);
    const paid = await fetch(`${server.address}/sandbox/pay`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ virtualAccountNo: opened.accountNumber, amount: 100 }),
    });
    assert.equal(paid.status, 400);
  });

  test("a slow bank times out and counts toward the breaker; once open, calls fail fast with 503", async () => {
    const states: string[] = [];
    const bank = adapter();
    bank.onBreakerChange((state) => states.push(state));
    const calls = async () =>
      ((await (await fetch(`${server.address}/sandbox/calls`)).json()) as { data: object }).data;
    await faults({ latencyMs: 1_000 });
    try {
      // create and query time out: two failures, below the threshold of three.
      const slow = await appError(bank.createVirtualAccount(request("ref-slow")));
      assert.deepEqual([slow.statusCode, slow.code], [502, "PROVIDER_UNAVAILABLE"]);
      assert.match(slow.message, /did not confirm the account; none was recorded/);
      // The third timeout opens the breaker; this create may have reached the bank: 502, not 503.
      const opening = await appError(bank.createVirtualAccount(request("ref-slow-2")));
      assert.equal(opening.statusCode, 502);
      assert.deepEqual(states, ["open"]);
      const before = await calls();
      const paused = await appError(bank.createVirtualAccount(request("ref-slow-3")));
      assert.deepEqual([paused.statusCode, paused.retryAfterSeconds], [503, 60]);
      assert.deepEqual(await calls(), before, "no call reached the bank");
      assert.equal(bank.breakerState, "open");
    } finally {
      await faults({ latencyMs: 0 });
    }
  });

  test("no retry starts that could not finish within the budget", async () => {
    const calls = async () =>
      ((await (await fetch(`${server.address}/sandbox/calls`)).json()) as { data: Record<string, number> })
        .data;
    const before = await calls();
    await faults({ latencyMs: 600 });
    try {
      const bank = adapter({ createAttempts: 5, createBudgetMs: 400, breakerThreshold: 100 });
      const failed = await appError(bank.createVirtualAccount(request("ref-budget")));
      assert.equal(failed.statusCode, 502);
    } finally {
      await faults({ latencyMs: 0 });
    }
    const after = await calls();
    assert.deepEqual(
      [(after.create ?? 0) - (before.create ?? 0), (after.query ?? 0) - (before.query ?? 0)],
      [1, 0],
      "one create (300 ms), then no retry: 300 + 10 + 300 ms would pass the 400 ms budget",
    );
  });

  test("a BANK_URL with a path (a gateway's prefix) keeps it", async () => {
    const prefixed = adapter({ url: `${server.address}/gateway/` });
    const failed = await appError(prefixed.createVirtualAccount(request("ref-prefix")));
    assert.equal(failed.statusCode, 502, "the bank has no /gateway prefix: a 404 outside the protocol");
    assert.match(String((failed.cause as Error).message), /HTTP 404 outside the protocol/);
  });
});

describe("vas bank serve: bad arguments are usage errors (exit 2), before anything starts", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-bank-cli-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const notKey = path.join(dir, "not-a-key.pem");
  writeFileSync(notKey, "hello");
  const valid = ["--port", "0", "--data-dir", dir, "--app-id", "a", "--notify-url", "http://127.0.0.1:1/n"];

  for (const [args, message] of [
    [["--port", "0"], /--data-dir is required/],
    [[...valid, "--client-public-key", notKey], /--client-public-key: .*not a PEM key/],
    [[...valid, "--client-public-key", path.join(dir, "absent.pub")], /--client-public-key: .*ENOENT/],
    [
      [...valid.slice(0, 6), "--notify-url", "ftp://x", "--client-public-key", notKey],
      /--notify-url must be/,
    ],
    [["--port", "99999", ...valid.slice(2), "--client-public-key", notKey], /--port must be a whole number/],
  ] as const) {
    test(`${args.join(" ").slice(0, 60)}…`, async () => {
      const run = await runVas(["bank", "serve", ...args], {});
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }
});
