import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { BankNotifications } from "../src/collections/bank-notifications.js";
import type { CollectionService, ReceivedTransfer } from "../src/collections/collection-service.js";
import { buildServerApp } from "../src/compose/server.js";
import { connectRedis } from "../src/http/rate-limit.js";
import { BANK_NOTIFICATIONS_PATH } from "../src/http/routes/bank-notifications.js";
import { envelope } from "../src/providers/bank-protocol.js";
import { signParams } from "../src/providers/bank-signing.js";
import type { TransferNotification } from "../src/providers/transfer-notification.js";
import { assertFailCode } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, appFor, createHarness, customer, type Harness } from "./helpers/harness.js";
import { signedBankNotification } from "./helpers/notifications.js";
import { REDIS_AVAILABLE, REDIS_URL } from "./helpers/redis.js";

// Issue 24, item 13: a sender without the bank's key is limited per address (429 once it has
// had its bad signatures for the minute, before anything is checked) and logged in aggregate
// (a line per address per minute with a count), while the bank's own notifications, from
// another address, go through.

const APP_ID = "abuse-test-app";
const LIMIT = 30;
const REFUSED = "bank notifications without a valid signature refused";

interface LogLine {
  msg: string;
  remoteAddress?: string;
  count?: number;
  rateLimited?: number;
}

// What authenticate refuses is what the route limits and logs in aggregate (a sender without
// the bank's key), so it must refuse exactly that, and leave the bank's own refusals to record.
describe("BankNotifications: authenticate, then record", () => {
  const bank = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const recorded: TransferNotification[] = [];
  const collections = {
    receive: async (transfer: TransferNotification) => {
      recorded.push(transfer);
      return { duplicate: false } as unknown as ReceivedTransfer;
    },
  } as unknown as CollectionService;
  const NOW = Date.UTC(2026, 0, 15, 12);
  const notifications = new BankNotifications({
    collections,
    appId: APP_ID,
    bankPublicKey: bank.publicKey,
    now: () => NOW,
  });
  const signed = (overrides: Record<string, unknown> = {}, key = bank.privateKey) => {
    const unsigned = {
      appId: APP_ID,
      orderNo: "ORDER-1",
      virtualAccountNo: "0123456789",
      orderAmount: 1_000_00,
      currency: "NGN",
      payerAccountName: "Ada Payer",
      payerAccountNo: "9876543210",
      payerBankName: "Other Bank",
      narration: "rent",
      paidTime: NOW - 1_000,
      ...envelope(NOW),
      ...overrides,
    };
    return { ...unsigned, sign: signParams(unsigned, key) };
  };
  const refusal = (call: () => unknown) => {
    try {
      call();
    } catch (error) {
      return (error as { code?: string }).code;
    }
    return "authenticated";
  };

  test("only a JSON object whose sign verifies with the bank's key is authenticated", () => {
    for (const body of [undefined, null, "text", 42, [signed()]]) {
      assert.equal(
        refusal(() => notifications.authenticate(body)),
        "VALIDATION_FAILED",
        String(body),
      );
    }
    const genuine = signed();
    assert.equal(notifications.authenticate(genuine), genuine);
    for (const forged of [
      signed({}, stranger.privateKey),
      { ...signed(), orderAmount: 9_999_999_00 },
      { ...signed(), sign: undefined },
      { ...signed(), sign: "" },
      { ...signed(), sign: 7 },
      { ...signed(), sign: "!".repeat(4000) },
    ]) {
      assert.equal(
        refusal(() => notifications.authenticate(forged)),
        "BANK_SIGNATURE_INVALID",
      );
    }
    // The bank's own, stale or for another app: authenticated here, refused by record.
    for (const body of [signed({ requestTime: NOW - 6 * 60_000 }), signed({ appId: "other" })]) {
      assert.equal(
        refusal(() => notifications.authenticate(body)),
        "authenticated",
      );
    }
  });

  test("record refuses a stale one, another app's and one out of shape, and records the rest", async () => {
    const outcome = (body: Record<string, unknown>) =>
      notifications.record(notifications.authenticate(body)).then(
        () => "recorded",
        (error: { code?: string }) => error.code,
      );
    assert.equal(await outcome(signed({ requestTime: NOW - 6 * 60_000 })), "BANK_MESSAGE_STALE");
    assert.equal(await outcome(signed({ appId: "other" })), "BANK_SIGNATURE_INVALID");
    assert.equal(await outcome(signed({ orderAmount: 1.5 })), "VALIDATION_FAILED");
    assert.equal(recorded.length, 0);
    assert.equal(await outcome(signed()), "recorded");
    assert.deepEqual(
      recorded.map((transfer) => [transfer.sessionId, transfer.amount]),
      [["ORDER-1", 1_000_00]],
    );
  });
});

for (const dialect of DIALECTS) {
  describe(`forged bank notifications on ${dialect}`, () => {
    let dir: string;
    let h: Harness;
    let bankKey: KeyObject;
    let number: string;

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "vas-abuse-"));
      const bank = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const client = generateKeyPairSync("rsa", { modulusLength: 2048 });
      bankKey = bank.privateKey;
      writeFileSync(path.join(dir, "bank.pub"), bank.publicKey.export({ type: "spki", format: "pem" }));
      writeFileSync(path.join(dir, "client.pem"), client.privateKey.export({ type: "pkcs8", format: "pem" }));
      h = await createHarness({
        dialect,
        // Numbers from the embedded bank; notifications as with a bank over HTTP.
        provider: ({ embedded }) => embedded,
        env: {
          PROVIDER: "http",
          BANK_URL: "http://127.0.0.1:9",
          BANK_APP_ID: APP_ID,
          BANK_PRIVATE_KEY_FILE: path.join(dir, "client.pem"),
          BANK_PUBLIC_KEY_FILE: path.join(dir, "bank.pub"),
          BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN: String(LIMIT),
          REDIS_KEY_PREFIX: `vas-test-${randomBytes(6).toString("hex")}:`,
        },
      });
      const business = await h.createBusiness();
      const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
      assert.equal(generated.statusCode, 201, generated.body);
      number = generated.json().data.accountNumber as string;
    });
    after(async () => {
      await h?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const notification = (key: KeyObject = bankKey) =>
      signedBankNotification(APP_ID, number, key, { narration: "forged-narration-text" });
    const post = (app: FastifyInstance, remoteAddress: string, body: unknown) =>
      app.inject({
        method: "POST",
        url: BANK_NOTIFICATIONS_PATH,
        remoteAddress,
        headers: { "content-type": "application/json" },
        payload: typeof body === "string" ? body : JSON.stringify(body),
      });
    const assertRateLimited = (response: LightMyRequestResponse) => {
      assertFailCode(response, 429, "RATE_LIMITED");
      const retryAfter = Number(response.headers["retry-after"]);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${response.headers["retry-after"]}`);
    };

    test("100 forged from one address: 401 up to the limit, then 429; a couple of counted log lines; the bank's own from another address accepted", async () => {
      const lines: LogLine[] = [];
      const app = appFor(h.services, {
        logStream: { write: (line: string) => lines.push(JSON.parse(line)) },
      });
      await app.ready();
      const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
      const forger = "203.0.113.7";
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) {
        const response = await post(app, forger, notification(stranger));
        statuses.push(response.statusCode);
        if (i < LIMIT) assertFailCode(response, 401, "BANK_SIGNATURE_INVALID");
        else assertRateLimited(response);
      }
      assert.deepEqual(
        [statuses.filter((s) => s === 401).length, statuses.filter((s) => s === 429).length],
        [LIMIT, 100 - LIMIT],
      );
      const genuine = await post(app, "198.51.100.2", notification());
      assert.equal(genuine.statusCode, 200, genuine.body);
      assertRateLimited(await post(app, forger, notification()));
      await app.close(); // writes the minute's counts

      const fromForger = lines.filter((line) => line.remoteAddress === forger);
      assert.ok(fromForger.length <= 2, JSON.stringify(fromForger));
      assert.ok(
        fromForger.every((line) => line.msg === REFUSED),
        JSON.stringify(fromForger),
      );
      const total = (key: "count" | "rateLimited") =>
        fromForger.reduce((sum, line) => sum + (line[key] ?? 0), 0);
      assert.deepEqual([total("count"), total("rateLimited")], [101, 100 - LIMIT + 1]);
      assert.ok(
        lines.some((line) => line.msg === "request completed" && line.remoteAddress === "198.51.100.2"),
        "the bank's own requests keep their line",
      );
      const text = JSON.stringify(lines);
      for (const secret of ["Chidi Eze", "forged-narration-text"]) {
        assert.ok(!text.includes(secret), `never the body (${secret})`);
      }
    });

    test("only failures count: the bank's notifications from one address never reach the limit", async () => {
      const app = appFor(h.services);
      await app.ready();
      try {
        const again = notification();
        for (let i = 0; i < LIMIT + 10; i++) {
          const response = await post(app, "198.51.100.3", i % 2 ? again : notification());
          assert.equal(response.statusCode, 200, `request ${i}: ${response.body}`);
        }
      } finally {
        await app.close();
      }
    });

    test("a body that is not a JSON object cannot be the bank's: counted too, its 400 unchanged", async () => {
      const app = appFor(h.services);
      await app.ready();
      try {
        for (let i = 0; i < LIMIT; i++) {
          assertFailCode(await post(app, "203.0.113.8", i % 2 ? "[1,2]" : "not json"), 400, "INVALID_JSON");
        }
        assertRateLimited(await post(app, "203.0.113.8", "[1,2]"));
        assert.equal((await post(app, "203.0.113.9", notification())).statusCode, 200);
      } finally {
        await app.close();
      }
    });

    test("with Redis the counters are shared: two apps let the limit through in total", {
      skip: !REDIS_AVAILABLE && "Redis is not answering",
    }, async () => {
      const errors: Error[] = [];
      const redis = await connectRedis(REDIS_URL, (error) => errors.push(error));
      const apps = [buildServerApp(h.services, { redis }), buildServerApp(h.services, { redis })];
      try {
        await Promise.all(apps.map((app) => app.ready()));
        const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
        const statuses: number[] = [];
        for (let i = 0; i < LIMIT + 6; i++) {
          const app = apps[i % 2] as FastifyInstance;
          statuses.push((await post(app, "203.0.113.10", notification(stranger))).statusCode);
        }
        assert.deepEqual(
          [statuses.filter((s) => s === 401).length, statuses.filter((s) => s === 429).length],
          [LIMIT, 6],
          statuses.join(","),
        );
        assert.equal(
          (await post(apps[1] as FastifyInstance, "203.0.113.11", notification())).statusCode,
          200,
        );
        assert.deepEqual(errors, []);
      } finally {
        await Promise.all(apps.map((app) => app.close()));
        await redis.quit();
      }
    });
  });
}
