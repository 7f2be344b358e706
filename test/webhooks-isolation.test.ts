import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { createDeliveryWorker } from "../src/compose/server.js";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import { DeliveryWorker } from "../src/webhooks/delivery-worker.js";
import { DIALECTS } from "./helpers/databases.js";
import { createHarness, endpointAt, type Harness, permanentInputOf } from "./helpers/harness.js";
import { notification } from "./helpers/notifications.js";
import { type Receiver, startReceiver } from "./helpers/receiver.js";

// Bad receivers (issue 18): a hanging and a refusing endpoint never hold up a healthy one; a
// run of failures pauses an endpoint until its next retry, then one probe goes; one account's
// events reach an endpoint in sequence order when they are due together.

const silent = { info: () => {}, warn: () => {} };
let clock = Date.parse("2026-09-01T09:00:00.000Z");
const now = () => clock;

/** Waits until `done()` holds, polling; a bound, not a measurement. */
async function until(done: () => boolean, what: string, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const dialect of DIALECTS) {
  describe(`webhook isolation on ${dialect}`, () => {
    let h: Harness;
    const receivers: Receiver[] = [];
    const workers: DeliveryWorker[] = [];
    before(async () => {
      h = await createHarness({
        dialect,
        now,
        env: {
          WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s,1s,1s,1s,1s,1s",
          WEBHOOK_TIMEOUT_MS: "20000",
          WEBHOOK_CONCURRENCY: "12",
          WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: "3",
          WEBHOOK_POLL_INTERVAL_MS: "20",
        },
      });
    });
    afterEach(async () => {
      await Promise.all(receivers.splice(0).map((r) => r.close()));
      await Promise.all(workers.splice(0).map((w) => w.stop()));
    });
    after(() => h.close());

    const setup = async (name: string) => {
      const created = await h.createBusiness({ name });
      const owner: ForBusiness = { businessId: created.businessId, businessName: created.name };
      const { account } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
      const pay = (amount: number, number = account.accountNumber) =>
        h.services.collections.receive(notification(number, amount, new Date(clock).toISOString()));
      return { owner, pay };
    };
    const receiver = async () => {
      const started = await startReceiver();
      receivers.push(started);
      return started;
    };
    const worker = () => {
      const started = createDeliveryWorker(h.services, silent, now);
      workers.push(started);
      return started;
    };

    test("a hanging and a refusing receiver never hold up a healthy one", async () => {
      const { owner, pay } = await setup("Mixed Receivers Ltd");
      const healthy = await receiver();
      const hanging = await receiver();
      hanging.answer = () => "hang";
      const refusing = await receiver();
      const refusingUrl = refusing.url;
      await refusing.close(); // nothing listens there now: connections are refused
      receivers.splice(receivers.indexOf(refusing), 1);
      for (const url of [hanging.url, refusingUrl, healthy.url])
        await h.services.webhooks.create(owner, endpointAt(url));
      for (let i = 1; i <= 20; i++) await pay(i);
      const running = worker();
      running.start();
      // Every healthy delivery arrives while the hanging ones are still open (they would give
      // up only after the 20 s timeout): the bad endpoints hold 3 slots each, never all 12.
      await until(() => healthy.received.length === 20, "the healthy receiver's 20 events", 15_000);
      assert.ok(
        hanging.received.length <= 3,
        `at most 3 in flight to the hanging one, got ${hanging.received.length}`,
      );
      assert.equal(new Set(healthy.received.map((r) => r.headers["webhook-id"])).size, 20);
    });

    test("after a run of failures the endpoint is paused until its next retry, then probed once", async () => {
      const { owner, pay } = await setup("Failing Run Ltd");
      const failing = await receiver();
      failing.answer = () => ({ status: 500 });
      const endpoint = await h.services.webhooks.create(owner, endpointAt(failing.url));
      for (let i = 1; i <= 8; i++) await pay(i);
      const driven = worker();
      const drive = async () => {
        for (let i = 0; i < 10 && (await driven.runOnce()) > 0; i++) await driven.drain();
      };
      await drive();
      // Three at a time: five failures make a run, and the rest wait for the next retry.
      const first = failing.received.length;
      assert.ok(first >= 5 && first <= 6, `the run that paused it: ${first} attempts`);
      const paused = await h.storage.db
        .selectFrom("webhook_endpoints")
        .select(["paused_until", "consecutive_failures"])
        .where("id", "=", endpoint.id)
        .executeTakeFirstOrThrow();
      assert.ok(paused.paused_until !== null && paused.consecutive_failures >= 5);
      const pending = await h.storage.db
        .selectFrom("webhook_deliveries")
        .select("next_attempt_at")
        .where("endpoint_id", "=", endpoint.id)
        .where("state", "=", "pending")
        .execute();
      assert.equal(pending.length, 8);
      assert.ok(
        pending.every((d) => d.next_attempt_at >= (paused.paused_until as string)),
        "all moved together",
      );
      await drive();
      assert.equal(failing.received.length, first, "nothing before the retry time");
      clock = Date.parse(paused.paused_until as string) + 200;
      await drive();
      assert.equal(failing.received.length, first + 1, "one probe at the retry time");
      failing.answer = () => ({ status: 200 });
      clock += 2_000;
      await drive();
      await drive();
      const delivered = (await h.services.events.list(owner, { page: 1, limit: 10 })).items.filter(
        (e) => e.deliveries[0]?.state === "delivered",
      );
      assert.equal(delivered.length, 8, "once the probe succeeds, everything follows");
    });

    test("an account's later events wait unscheduled behind the earlier one, which a failure does not make them wait out", async () => {
      const { owner, pay } = await setup("Chained Ltd");
      const chained = await receiver();
      chained.answer = (request) => (request === 1 ? { status: 500 } : { status: 200 });
      await h.services.webhooks.create(owner, { ...endpointAt(chained.url), events: ["payment.received"] });
      for (let i = 1; i <= 3; i++) await pay(i * 100);
      const deliveries = async () =>
        (await h.services.events.list(owner, { page: 1, limit: 10 })).items
          .sort((a, b) => a.sequence - b.sequence)
          .map((e) => e.deliveries[0]);
      const queued = await deliveries();
      assert.deepEqual(
        queued.map((d) => [d?.state, d?.nextAttemptAt === null]),
        [
          ["pending", false],
          ["pending", true],
          ["pending", true],
        ],
        "only the first is scheduled; the others wait for it",
      );
      const driven = worker();
      assert.equal(await driven.runOnce(), 1, "a claim sees the chain's head alone");
      await driven.drain();
      // The first failed and waits for its retry; the next one goes now, and then the third.
      for (let i = 0; i < 5 && (await driven.runOnce()) > 0; i++) await driven.drain();
      const amounts = () =>
        chained.received.map((r) => (JSON.parse(r.body) as { data: { amount: number } }).data.amount);
      assert.deepEqual(amounts(), [100, 200, 300]);
      const after = await deliveries();
      assert.deepEqual(
        after.map((d) => d?.state),
        ["pending", "delivered", "delivered"],
      );
      assert.ok(after[0]?.nextAttemptAt !== null, "the failed one has its retry scheduled");
      clock += 2_000;
      for (let i = 0; i < 5 && (await driven.runOnce()) > 0; i++) await driven.drain();
      assert.deepEqual(
        amounts(),
        [100, 200, 300, 100],
        "the retry arrives late; its sequence restores the order",
      );
      assert.equal((await deliveries())[0]?.state, "delivered");
    });

    test("a chain's next delivery is claimed as soon as the one before it settles, not at the next poll", async () => {
      const { owner, pay } = await setup("Prompt Ltd");
      const prompt = await receiver();
      await h.services.webhooks.create(owner, { ...endpointAt(prompt.url), events: ["payment.received"] });
      for (let i = 1; i <= 6; i++) await pay(i * 100);
      const { webhooks } = h.services.config;
      const polling = new DeliveryWorker({
        storage: h.services.storage,
        deliveries: h.services.stores.deliveries,
        outcomes: h.services.stores.smallTransactions,
        endpoints: h.services.webhooks,
        timeoutMs: webhooks.timeoutMs,
        pollIntervalMs: 600_000,
        concurrency: webhooks.concurrency,
        maxInFlightPerEndpoint: webhooks.maxInFlightPerEndpoint,
        retrySchedule: webhooks.retrySchedule,
        allowPrivate: webhooks.allowPrivate,
        log: silent,
        now,
      });
      workers.push(polling);
      polling.start();
      // Polling alone would bring the second one ten minutes later.
      await until(() => prompt.received.length === 6, "the chain's six deliveries", 10_000);
    });

    test("a chain is handed over: the process that delivered one attempts the next at once, with no claim between", async () => {
      const { owner, pay } = await setup("Handed Ltd");
      const handed = await receiver();
      await h.services.webhooks.create(owner, { ...endpointAt(handed.url), events: ["payment.received"] });
      for (let i = 1; i <= 5; i++) await pay(i * 100);
      const driven = worker();
      assert.equal(await driven.runOnce(), 1, "one claim, of the chain's head");
      await driven.drain();
      const amounts = handed.received.map(
        (r) => (JSON.parse(r.body) as { data: { amount: number } }).data.amount,
      );
      assert.deepEqual(amounts, [100, 200, 300, 400, 500], "the whole chain, in order, from that one claim");
      assert.equal(await driven.runOnce(), 0, "nothing left to claim");
    });

    test("one account's events due together reach an endpoint in sequence order", async () => {
      const { owner, pay } = await setup("Ordered Ltd");
      const { account: other } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
      const ordered = await receiver();
      await h.services.webhooks.create(owner, { ...endpointAt(ordered.url), events: ["payment.received"] });
      for (let i = 1; i <= 4; i++) await pay(i * 100);
      await pay(999, other.accountNumber);
      const driven = worker();
      const claimed = await driven.runOnce();
      assert.equal(claimed, 2, "the first of the account's events, and the other account's");
      await driven.drain();
      for (let i = 0; i < 10 && (await driven.runOnce()) > 0; i++) await driven.drain();
      const bodies = ordered.received.map(
        (r) => JSON.parse(r.body) as { sequence: number; accountNumber: string },
      );
      assert.equal(bodies.length, 5);
      const first = bodies.filter((b) => b.accountNumber !== other.accountNumber).map((b) => b.sequence);
      assert.deepEqual(
        first,
        [...first].sort((a, b) => a - b),
        "in sequence order",
      );
      assert.ok(bodies.every((b) => typeof b.sequence === "number" && typeof b.accountNumber === "string"));
    });
  });
}
