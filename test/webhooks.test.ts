import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { after, afterEach, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { createDeliveryWorker } from "../src/compose/server.js";
import { loadConfig } from "../src/config/load.js";
import { CLI, type ForBusiness } from "../src/core/actor.js";
import { check } from "../src/core/validation.js";
import { AppError } from "../src/errors.js";
import type { DeliveryWorker } from "../src/webhooks/delivery-worker.js";
import { postJson, publicOnlyLookup } from "../src/webhooks/http-post.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  createHarness,
  endpointAt,
  type Harness,
  permanentInputOf,
  temporaryInputOf,
} from "./helpers/harness.js";
import { notification } from "./helpers/notifications.js";
import { type Receiver, startReceiver } from "./helpers/receiver.js";

// Webhook delivery (issue 11) to real receivers on real ports, on both databases: every event
// type verified with the standardwebhooks package, retries with the same webhook-id, 410
// disabling, secret rotation signing with both secrets, subscriptions, and no SSRF.

const MINUTE = 60_000;
let clock = Date.parse("2026-08-01T09:00:00.000Z");
const now = () => clock;
const silent = { info: () => {}, warn: () => {} };

/**
 * The package's verify, by a receiver whose clock reads the service's (injected) clock: it checks
 * the signature over id, timestamp and body, and that the timestamp is within 5 minutes of now.
 */
function verifyAsReceiver(secret: string, body: string, headers: Record<string, string>): unknown {
  const realNow = Date.now;
  Date.now = () => clock;
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    Date.now = realNow;
  }
}

for (const dialect of DIALECTS) {
  describe(`webhooks on ${dialect}`, () => {
    let h: Harness;
    let worker: DeliveryWorker;
    const receivers: Receiver[] = [];
    before(async () => {
      h = await createHarness({ dialect, now, env: { WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s" } });
      worker = createDeliveryWorker(h.services, silent, now);
    });
    afterEach(async () => {
      await worker.drain();
      await Promise.all(receivers.splice(0).map((r) => r.close()));
    });
    after(() => h.close());

    const business = async (name: string): Promise<ForBusiness> => {
      const created = await h.createBusiness({ name });
      return { businessId: created.businessId, businessName: created.name };
    };
    const receiver = async () => {
      const started = await startReceiver();
      receivers.push(started);
      return started;
    };
    /** Runs the worker until nothing is due now. */
    const deliver = async () => {
      for (let i = 0; i < 20; i++) {
        const claimed = await worker.runOnce();
        await worker.drain();
        if (claimed === 0) return;
      }
    };
    const verified = (secret: string, got: Receiver) =>
      got.received.map(({ headers, body }) => {
        const payload = verifyAsReceiver(secret, body, headers as Record<string, string>) as {
          type: string;
          timestamp: string;
          data: Record<string, unknown>;
        };
        return { id: headers["webhook-id"], ...payload };
      });

    test("every event type arrives signed as Standard Webhooks says, verified by its package", async () => {
      const owner = await business("Hooked Ltd");
      const target = await receiver();
      const endpoint = await h.services.webhooks.create(owner, endpointAt(target.url));
      assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual([endpoint.events, endpoint.enabled], [null, true]);

      const body = permanentInputOf();
      const { account } = await h.services.accounts.generatePermanent(owner, CLI, body);
      const paid = await h.services.collections.receive(
        notification(account.accountNumber, 25_000, new Date(clock).toISOString()),
      );
      const { account: again } = await h.services.accounts.generatePermanent(owner, CLI, body);
      await h.services.lifecycle.setActive(owner, CLI, again.accountNumber, false);
      await h.services.lifecycle.setActive(owner, CLI, again.accountNumber, true);
      const temporary = await h.services.accounts.generateTemporary(
        owner,
        CLI,
        temporaryInputOf({ duration: 1 }),
      );
      clock += MINUTE;
      assert.equal(await h.services.lifecycle.emitExpirations(), 1);
      const test = await h.services.webhooks.sendTest(owner, endpoint.id);
      await deliver();

      // Deliveries run concurrently, so they may arrive in any order: each is matched to its
      // event by webhook-id, which is the event's id.
      const listed = (await h.services.events.list(owner, { page: 1, limit: 10 })).items.reverse();
      const got = new Map(verified(endpoint.secret, target).map((e) => [e.id, e]));
      assert.equal(got.size, 6);
      assert.deepEqual(
        listed.map((e) => e.type),
        [
          "payment.received",
          "account.reissued",
          "account.deactivated",
          "account.reactivated",
          "account.expired",
          "webhook.test",
        ],
      );
      for (const event of listed) {
        const delivered = got.get(event.id);
        assert.ok(delivered, `${event.type} was delivered`);
        assert.deepEqual(
          { type: delivered.type, timestamp: delivered.timestamp, data: delivered.data },
          { type: event.type, timestamp: event.createdAt, data: event.data },
        );
        assert.deepEqual(
          event.deliveries.map((d) => [d.endpointId, d.state, d.attempts]),
          [[endpoint.id, "delivered", 1]],
          event.type,
        );
      }
      assert.deepEqual(listed[0]?.data, { ...paid.transaction, payment: null });
      assert.equal(listed[4]?.accountNumber, temporary.accountNumber);
      assert.equal(listed[5]?.id, test.eventId);
      assert.equal(target.received[0]?.headers["content-type"], "application/json");
    });

    test("a receiver failing twice gets the event three times with the same webhook-id", async () => {
      const owner = await business("Flaky Ltd");
      const target = await receiver();
      target.answer = (n) =>
        n <= 2 ? { status: n === 1 ? 500 : 503, headers: { "retry-after": "2" } } : { status: 204 };
      const endpoint = await h.services.webhooks.create(owner, endpointAt(target.url));
      const { account } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
      await h.services.collections.receive(
        notification(account.accountNumber, 100, new Date(clock).toISOString()),
      );
      await deliver();
      assert.equal(target.received.length, 1);
      clock += 1_500; // the schedule's 1 s (with jitter) has passed
      await deliver();
      assert.equal(target.received.length, 2, "retried after the schedule's delay");
      clock += 1_500; // the 503's Retry-After: 2 s has not passed yet
      await deliver();
      assert.equal(target.received.length, 2, "Retry-After is honoured");
      clock += 1_000;
      await deliver();
      const ids = target.received.map((r) => r.headers["webhook-id"]);
      assert.equal(ids.length, 3);
      assert.equal(new Set(ids).size, 1, "the same webhook-id on every retry");
      assert.equal(verified(endpoint.secret, target).length, 3, "each attempt is signed afresh");
      const [event] = (await h.services.events.list(owner, { page: 1, limit: 10 })).items;
      assert.deepEqual(
        event?.deliveries.map((d) => [d.state, d.attempts, d.lastStatus]),
        [["delivered", 3, 204]],
      );
    });

    test("410 Gone disables the endpoint at once; enabling it again delivers new events", async () => {
      const owner = await business("Gone Ltd");
      const target = await receiver();
      target.answer = () => ({ status: 410 });
      const endpoint = await h.services.webhooks.create(owner, endpointAt(target.url));
      const { account } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
      await h.services.collections.receive(
        notification(account.accountNumber, 100, new Date(clock).toISOString()),
      );
      await deliver();
      const disabled = await h.services.webhooks.get(owner, endpoint.id);
      assert.deepEqual(
        [disabled.enabled, disabled.disabledReason],
        [false, "the endpoint answered 410 Gone"],
      );
      await h.services.collections.receive(
        notification(account.accountNumber, 200, new Date(clock).toISOString()),
      );
      clock += 10 * MINUTE;
      await deliver();
      assert.equal(target.received.length, 1, "nothing goes to a disabled endpoint");
      target.answer = () => ({ status: 200 });
      assert.equal((await h.services.webhooks.update(owner, endpoint.id, { enabled: true })).enabled, true);
      await h.services.collections.receive(
        notification(account.accountNumber, 300, new Date(clock).toISOString()),
      );
      await deliver();
      const after = target.received
        .slice(1)
        .map((r) => JSON.parse(r.body) as { type: string; data: { amount?: number } });
      assert.deepEqual(
        after.map((e) => e.type).sort(),
        ["endpoint.enabled", "payment.received"],
        "its own enabling, then the new payment",
      );
      assert.equal(after.find((e) => e.type === "payment.received")?.data.amount, 300);
    });

    test("a disabled endpoint is announced to its siblings (endpoint.disabled), and so is enabling it", async () => {
      const owner = await business("Siblings Ltd");
      const gone = await receiver();
      gone.answer = () => ({ status: 410 });
      const sibling = await receiver();
      const goneEndpoint = await h.services.webhooks.create(owner, endpointAt(gone.url));
      const siblingEndpoint = await h.services.webhooks.create(owner, endpointAt(sibling.url));
      const { account } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
      await h.services.collections.receive(
        notification(account.accountNumber, 100, new Date(clock).toISOString()),
      );
      await deliver();
      await deliver();
      const told = verified(siblingEndpoint.secret, sibling);
      assert.deepEqual(
        told.map((e) => e.type),
        ["payment.received", "endpoint.disabled"].filter((type) => told.some((e) => e.type === type)),
      );
      const disabled = told.find((e) => e.type === "endpoint.disabled");
      assert.deepEqual(
        [disabled?.data.id, disabled?.data.enabled, disabled?.data.disabledReason],
        [goneEndpoint.id, false, "the endpoint answered 410 Gone"],
      );
      assert.equal(gone.received.length, 1, "the disabled endpoint never hears of it");
      gone.answer = () => ({ status: 200 });
      await h.services.webhooks.update(owner, goneEndpoint.id, { enabled: true });
      await deliver();
      const enabled = verified(goneEndpoint.secret, gone).find((e) => e.type === "endpoint.enabled");
      assert.equal(enabled?.data.id, goneEndpoint.id, "enabled again, it is told too");
      const types = (await h.services.events.list(owner, { page: 1, limit: 10 })).items.map((e) => e.type);
      assert.deepEqual(
        types.slice(0, 2),
        ["endpoint.enabled", "endpoint.disabled"],
        "both listed in GET /events",
      );
    });

    test("an endpoint whose every attempt has failed for 5 days is disabled", async () => {
      const owner = await business("Down Ltd");
      const target = await receiver();
      target.answer = () => ({ status: 500 });
      const endpoint = await h.services.webhooks.create(owner, endpointAt(target.url));
      const { account } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
      const pay = (amount: number) =>
        h.services.collections.receive(
          notification(account.accountNumber, amount, new Date(clock).toISOString()),
        );
      await pay(100);
      await deliver();
      // Failing for a while is not enough; a success would reset the run.
      clock += 4 * 24 * 60 * MINUTE;
      await pay(200);
      await deliver();
      assert.equal(
        (await h.services.webhooks.get(owner, endpoint.id)).enabled,
        true,
        "4 days: still enabled",
      );
      clock += 24 * 60 * MINUTE;
      await pay(300);
      await deliver();
      const disabled = await h.services.webhooks.get(owner, endpoint.id);
      assert.deepEqual(
        [disabled.enabled, disabled.disabledReason],
        [false, "every delivery attempt failed for 5 days"],
      );
      const payments = await h.services.events.list(owner, { page: 1, limit: 10, type: "payment.received" });
      const states = payments.items.map((e) => e.deliveries[0]?.state);
      assert.deepEqual(states, ["failed", "failed", "failed"], "its pending deliveries end as failed");
    });

    test("during a secret rotation every delivery verifies with the old secret and with the new one", async () => {
      const owner = await business("Rotating Ltd");
      const target = await receiver();
      const endpoint = await Promise.resolve()
        .then(() => check(h.services.webhooks.inputs.create, { url: target.url, events: ["webhook.test"] }))
        .catch((error: unknown) => error);
      assert.ok(
        endpoint instanceof AppError && endpoint.statusCode === 400,
        "webhook.test is not subscribable",
      );
      const created = await h.services.webhooks.create(owner, {
        ...endpointAt(target.url),
        events: ["payment.received"],
      });
      const rotated = await h.services.webhooks.rotateSecret(owner, created.id);
      assert.notEqual(rotated.secret, created.secret);
      await h.services.webhooks.sendTest(owner, created.id);
      await deliver();
      assert.equal(verified(created.secret, target).length, 1);
      assert.equal(verified(rotated.secret, target).length, 1);
      assert.equal(String(target.received[0]?.headers["webhook-signature"]).split(" ").length, 2);
      clock += 24 * 60 * MINUTE + 1;
      await h.services.webhooks.sendTest(owner, created.id);
      await deliver();
      const last = target.received[1];
      assert.equal(
        String(last?.headers["webhook-signature"]).split(" ").length,
        1,
        "the old secret is retired after 24 h",
      );
      assert.throws(() =>
        new Webhook(created.secret).verify(last?.body ?? "", last?.headers as Record<string, string>),
      );
    });

    test("an endpoint gets only the types it subscribes to, and a deleted one nothing", async () => {
      const owner = await business("Picky Ltd");
      const payments = await receiver();
      const everything = await receiver();
      const picky = await h.services.webhooks.create(owner, {
        url: payments.url,
        events: ["payment.received"],
      });
      const all = await h.services.webhooks.create(owner, endpointAt(everything.url));
      const { account } = await h.services.accounts.generatePermanent(owner, CLI, permanentInputOf());
      await h.services.lifecycle.setActive(owner, CLI, account.accountNumber, false);
      await h.services.lifecycle.setActive(owner, CLI, account.accountNumber, true);
      await h.services.collections.receive(
        notification(account.accountNumber, 100, new Date(clock).toISOString()),
      );
      await h.services.webhooks.remove(owner, all.id);
      await deliver();
      assert.deepEqual(
        verified(picky.secret, payments).map((e) => e.type),
        ["payment.received"],
      );
      assert.equal(everything.received.length, 0, "a deleted endpoint's deliveries are cancelled");
      assert.deepEqual(
        (await h.services.webhooks.list(owner)).map((e) => e.id),
        [picky.id],
      );
      await assert.rejects(h.services.webhooks.get(owner, all.id), { code: "WEBHOOK_NOT_FOUND" });
    });
  });
}

describe("webhook addresses (no SSRF)", () => {
  test("production refuses http, credentials and private literal addresses when saving", async () => {
    const h = await createHarness({
      env: {
        NODE_ENV: "production",
        SMTP_URL: "smtp://127.0.0.1:2525",
        SANDBOX: "true",
        WEBHOOK_ALLOW_PRIVATE: "false",
      },
    });
    try {
      const created = await h.createBusiness({ name: "Prod Ltd" });
      const owner = { businessId: created.businessId, businessName: created.name };
      for (const [url, message] of [
        ["http://hooks.example.com/x", "url must be https"],
        ["https://user:pw@hooks.example.com/x", "url must not contain credentials"],
        ["https://127.0.0.1/x", /public address/],
        ["https://[::1]/x", /public address/],
        ["https://169.254.169.254/latest/meta-data", /public address/],
        ["https://10.1.2.3/x", /public address/],
        ["https://localhost/x", /public address/],
        ["https://localhost./x", /public address/],
        ["https://intranet/x", /public address/],
        ["https://[::ffff:0:127.0.0.1]/x", /public address/],
        ["https://[::127.0.0.1]/x", /public address/],
        ["https://[2002:7f00::1]/x", /public address/],
        ["https://[64:ff9b::a9fe:a9fe]/x", /public address/],
        ["ftp://hooks.example.com/x", "url must be an http or https URL"],
      ] as const) {
        // The address policy is the body's rule: judged as the route's contract judges it.
        const refused = await Promise.resolve()
          .then(() => h.services.webhooks.create(owner, check(h.services.webhooks.inputs.create, { url })))
          .catch((error: unknown) => error);
        assert.ok(refused instanceof AppError && refused.statusCode === 400, url);
        if (typeof message === "string") assert.equal(refused.message, message);
        else assert.match(refused.message, message);
      }
      const accept = (url: string) => check(h.services.webhooks.inputs.create, { url });
      const ok = await h.services.webhooks.create(owner, accept("https://hooks.example.com/vas"));
      assert.equal(ok.url, "https://hooks.example.com/vas");
      // The regression: every IPv4 receiver was refused as "not a public address".
      for (const url of [
        "https://1.1.1.1/hook",
        "https://41.58.12.7/hook",
        "https://[2606:4700:4700::1111]/hook",
      ]) {
        assert.equal((await h.services.webhooks.create(owner, accept(url))).url, url);
      }
    } finally {
      await h.close();
    }
  });

  test("at delivery, the address connected to must be public: a name resolving to loopback is refused", async () => {
    const target = await startReceiver();
    try {
      const url = target.url.replace("127.0.0.1", "localhost");
      const refused = await postJson(url, "{}", {}, { timeoutMs: 2_000, allowPrivate: false });
      assert.equal(refused.error, "address not allowed", "the attempt never says what the name resolved to");
      const literal = await postJson(target.url, "{}", {}, { timeoutMs: 2_000, allowPrivate: false });
      assert.equal(literal.error, "address not allowed");
      for (const embedded of ["[::ffff:7f00:1]", "[::127.0.0.1]", "[::ffff:0:127.0.0.1]", "[2002:7f00::1]"]) {
        const sent = await postJson(
          target.url.replace("127.0.0.1", embedded),
          "{}",
          {},
          {
            timeoutMs: 2_000,
            allowPrivate: false,
          },
        );
        assert.equal(sent.error, "address not allowed", embedded);
      }
      assert.equal(target.received.length, 0, "nothing was sent");
      const allowed = await postJson(url, "{}", {}, { timeoutMs: 2_000, allowPrivate: true });
      assert.equal(allowed.status, 200);
    } finally {
      await target.close();
    }
  });

  test("at connect time, public IPv4 and IPv6 answers are used and the rest dropped", async () => {
    const answers: Record<string, LookupAddress[]> = {
      "mixed.example.com": [
        { address: "127.0.0.1", family: 4 },
        { address: "1.1.1.1", family: 4 },
        { address: "::ffff:10.0.0.1", family: 6 },
        { address: "2606:4700:4700::1111", family: 6 },
      ],
      "inside.example.com": [
        { address: "10.0.0.1", family: 4 },
        { address: "64:ff9b::7f00:1", family: 6 },
        { address: "2002:a9fe:a9fe::", family: 6 },
      ],
    };
    const lookup = publicOnlyLookup((hostname, _options, callback) =>
      callback(null, answers[hostname] ?? []),
    );
    const resolve = (hostname: string, all: boolean) =>
      new Promise<{ error: Error | null; address: unknown }>((resolve) =>
        lookup(hostname, { all }, (error, address) => resolve({ error, address })),
      );
    assert.deepEqual((await resolve("mixed.example.com", true)).address, [
      { address: "1.1.1.1", family: 4 },
      { address: "2606:4700:4700::1111", family: 6 },
    ]);
    assert.equal((await resolve("mixed.example.com", false)).address, "1.1.1.1");
    const refused = await resolve("inside.example.com", false);
    assert.equal(refused.error?.message, "address not allowed");
  });

  test("production's default refuses private addresses; WEBHOOK_ALLOW_PRIVATE is on by default in development only", () => {
    const key = "0".repeat(64);
    assert.equal(
      loadConfig({ NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:2525", VAS_MASTER_KEY: key }).webhooks
        .allowPrivate,
      false,
    );
    assert.equal(loadConfig({ NODE_ENV: "test" }).webhooks.allowPrivate, false);
    assert.equal(loadConfig({ NODE_ENV: "development" }).webhooks.allowPrivate, true);
    assert.equal(loadConfig({}).webhooks.allowPrivate, true, "development is the default NODE_ENV");
    assert.equal(
      loadConfig({ NODE_ENV: "development", WEBHOOK_ALLOW_PRIVATE: "false" }).webhooks.allowPrivate,
      false,
    );
    assert.equal(
      loadConfig({
        NODE_ENV: "production",
        SMTP_URL: "smtp://127.0.0.1:2525",
        VAS_MASTER_KEY: key,
        WEBHOOK_ALLOW_PRIVATE: "true",
      }).webhooks.allowPrivate,
      true,
    );
  });

  test("a receiver that never answers is given up on after the timeout, redirects are not followed", async () => {
    const target = await startReceiver();
    try {
      target.answer = (n) =>
        n === 1 ? "hang" : { status: 302, headers: { location: "http://127.0.0.1:1/" } };
      const hung = await postJson(target.url, "{}", {}, { timeoutMs: 300, allowPrivate: true });
      assert.equal(hung.error, "no answer within 300 ms");
      const redirected = await postJson(target.url, "{}", {}, { timeoutMs: 2_000, allowPrivate: true });
      assert.equal(redirected.status, 302);
      assert.equal(target.received.length, 2);
    } finally {
      await target.close();
    }
  });
});
