import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type Receiver, startReceiver } from "../../test/helpers/receiver.js";
import { bankNotificationSchema } from "../providers/bank-protocol.js";
import { verifyParams } from "../providers/bank-signing.js";
import { VirtualBank } from "../providers/virtual-bank.js";
import { BankDatabase } from "./bank-database.js";
import { bankStore } from "./bank-store.js";
import { FaultPlan } from "./faults.js";
import { classifyAnswer, MAX_RETRY_DELAY_MS, Notifier, retryDelay } from "./notifier.js";

describe("retryDelay", () => {
  test("doubles from the base and stops at the cap", () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((attempt) => retryDelay(attempt, 1_000)),
      [1_000, 2_000, 4_000, 8_000],
    );
    assert.equal(retryDelay(20, 1_000), MAX_RETRY_DELAY_MS);
    assert.equal(retryDelay(10_000, 1_000), MAX_RETRY_DELAY_MS, "no overflow on a very late attempt");
  });
});

describe("classifyAnswer", () => {
  test("only the acknowledgement ends the notifications with success", () => {
    assert.equal(classifyAnswer(200, '{"respCode":"00000000","respMsg":"success"}'), "acknowledged");
    assert.equal(classifyAnswer(200, '{"respCode":"SOMETHING"}'), "retry");
    assert.equal(classifyAnswer(200, "success"), "retry", "not the protocol's answer");
  });
  test("a refusal of the transfer is final; misconfiguration, conflicts and outages are retried", () => {
    for (const status of [400, 422]) assert.equal(classifyAnswer(status, "{}"), "refused");
    for (const status of [401, 403, 404, 408, 409, 415, 429, 500, 502, 503]) {
      assert.equal(classifyAnswer(status, "{}"), "retry", String(status));
    }
  });
});

describe("Notifier against a real receiver", () => {
  const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  let dir: string;
  let db: BankDatabase;
  let receiver: Receiver;
  const ACK = { status: 200, body: '{"respCode":"00000000","respMsg":"success"}' };
  /** What the receiver got, as JSON. */
  const received = () => receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "vas-notifier-"));
    db = new BankDatabase(path.join(dir, "bank.sqlite"));
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Pays, then runs the notifier until the transfer is no longer pending. */
  async function notify(orderNo: string, faults = new FaultPlan()) {
    const notifier = new Notifier({
      db,
      bank: new VirtualBank({
        store: bankStore(db, () => []),
        institutionCode: "999240",
        permutationKey: Buffer.alloc(32, 1),
      }),
      notifyUrl: receiver.url,
      payoutNotifyUrl: receiver.url,
      appId: "app-1",
      privateKey: keys.privateKey,
      faults,
      retryBaseMs: 10,
      maxAttempts: 3,
      timeoutMs: 2_000,
      pollIntervalMs: 5,
      log: { info: () => {}, warn: () => {} },
    });
    db.addTransfer({
      orderNo,
      accountNumber: "0123456789",
      amount: 150_00,
      currency: "NGN",
      payerName: "Ada",
      payerAccountNo: "1111111111",
      payerBankName: "Other Bank",
      payerBankCode: "058",
      narration: "",
      paidTime: Date.now(),
    });
    notifier.start();
    try {
      for (let i = 0; i < 400; i++) {
        const transfer = db.transfer(orderNo);
        if (transfer && transfer.status !== "pending") return transfer;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error("still pending");
    } finally {
      await notifier.stop();
    }
  }

  test("sends the protocol's notification, signed by the bank, and stops at the acknowledgement", async () => {
    receiver.answer = () => ACK;
    receiver.received.length = 0;
    const transfer = await notify("ACK-1");
    assert.deepEqual([transfer.status, transfer.attempts, transfer.lastError], ["acknowledged", 1, null]);
    const sent = received()[0] ?? {};
    assert.ok(bankNotificationSchema.safeParse(sent).success, "the protocol's shape");
    assert.ok(verifyParams(sent as never, sent.sign, keys.publicKey), "signed with the bank's key");
    assert.equal(sent.narration, "", "an empty narration is sent, and left out of the signed string");
  });

  test("a refusal is final after one attempt; failures are retried until the attempts run out", async () => {
    receiver.answer = () => ({ status: 422, body: '{"status":"fail","message":"Unknown account"}' });
    const refused = await notify("REFUSED-1");
    assert.deepEqual([refused.status, refused.attempts], ["refused", 1]);
    assert.match(refused.lastError ?? "", /^HTTP 422: .*Unknown account/);
    receiver.answer = () => ({ status: 503, body: "{}" });
    const abandoned = await notify("DOWN-1");
    assert.deepEqual([abandoned.status, abandoned.attempts], ["abandoned", 3]);
  });

  test("dropped attempts are retried; duplicated ones are sent several times at once", async () => {
    receiver.answer = () => ACK;
    receiver.received.length = 0;
    const faults = new FaultPlan();
    faults.set({ dropNotifications: 1, duplicateNotifications: 2 });
    const transfer = await notify("FAULTS-1", faults);
    assert.deepEqual([transfer.status, transfer.attempts], ["acknowledged", 2]);
    assert.equal(received().length, 3, "the second attempt, sent three times");
    assert.equal(new Set(received().map((r) => r.orderNo)).size, 1);
  });
});
