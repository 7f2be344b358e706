import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, afterEach, before, describe, test } from "node:test";
import { cliEnv } from "./helpers/cli.js";
import { DATABASE_KINDS } from "./helpers/databases.js";
import { createHarness, endpointAt, type Harness, permanentInputOf } from "./helpers/harness.js";
import { notification } from "./helpers/notifications.js";
import { type Receiver, startReceiver } from "./helpers/receiver.js";
import { type ServerProcess, startServerProcess } from "./helpers/server-process.js";

// The delivery queue shared by real server processes (issue 11): two processes deliver 200
// events, each exactly once; a process killed with SIGKILL mid-delivery leaves a lease that
// expires, and another process delivers the event (at least once, same webhook-id).

/** Waits until `done()` holds, polling; a bound, not a measurement. */
async function until(done: () => boolean | Promise<boolean>, what: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const dialect of DATABASE_KINDS) {
  describe(`webhook delivery across processes on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let env: Record<string, string>;
    let receiver: Receiver;
    const servers: ServerProcess[] = [];
    before(async () => {
      h = await createHarness({ dialect, masterKey });
      env = {
        ...(cliEnv(h, masterKey) as Record<string, string>),
        WEBHOOK_POLL_INTERVAL_MS: "50",
        WEBHOOK_TIMEOUT_MS: "1000",
      };
    });
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((server) => server.stop("SIGKILL")));
      await receiver?.close();
    });
    after(() => h.close());

    /** A business with one endpoint at a fresh receiver and one account to pay into. */
    const setup = async (name: string) => {
      receiver = await startReceiver();
      const created = await h.createBusiness({ name });
      const owner = { businessId: created.businessId, businessName: created.name };
      await h.services.webhooks.create(owner, endpointAt(receiver.url));
      const { account } = await h.services.accounts.generatePermanent(
        owner,
        { type: "cli", id: null },
        permanentInputOf(),
      );
      const pay = (amount: number) =>
        h.services.collections.receive(notification(account.accountNumber, amount, new Date().toISOString()));
      return { owner, pay };
    };

    test("two processes deliver 200 events, each exactly once", async () => {
      const { owner, pay } = await setup("Busy Hooks Ltd");
      for (let i = 1; i <= 200; i++) await pay(i);
      servers.push(await startServerProcess(env), await startServerProcess(env));
      await until(() => receiver.received.length >= 200, "200 deliveries");
      // A little longer: a duplicate would arrive now.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ids = receiver.received.map((r) => r.headers["webhook-id"]);
      assert.equal(ids.length, 200, "no event delivered twice");
      assert.equal(new Set(ids).size, 200);
      const events = await h.services.events.list(owner, { page: 1, limit: 100 });
      assert.equal(events.pagination.total, 200);
      for (const event of events.items)
        assert.deepEqual(
          event.deliveries.map((d) => [d.state, d.attempts]),
          [["delivered", 1]],
        );
    });

    test("a process killed mid-delivery: another delivers the event once the lease expires", async () => {
      const { owner, pay } = await setup("Crashy Hooks Ltd");
      receiver.answer = (n) => (n === 1 ? "hang" : { status: 200 });
      const first = await startServerProcess(env);
      servers.push(first);
      await pay(5_000);
      await until(() => receiver.received.length === 1, "the first attempt");
      await first.stop("SIGKILL");
      servers.push(await startServerProcess(env));
      await until(() => receiver.received.length === 2, "the attempt after the lease");
      const [a, b] = receiver.received.map((r) => r.headers["webhook-id"]);
      assert.equal(a, b, "the same webhook-id");
      await until(async () => {
        const [event] = (await h.services.events.list(owner, { page: 1, limit: 10 })).items;
        return event?.deliveries[0]?.state === "delivered";
      }, "the delivery recorded");
    });
  });
}
