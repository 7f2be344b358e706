import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createDeliveryWorker } from "../src/compose/server.js";
import { CLI } from "../src/core/actor.js";
import type { DeliveryWorker } from "../src/webhooks/delivery-worker.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  createHarness,
  endpointAt,
  type Harness,
  permanentInputOf,
  verifyBusiness,
} from "./helpers/harness.js";
import { signedUpBusiness } from "./helpers/members.js";
import { pageClient } from "./helpers/page-client.js";
import { type Receiver, startReceiver } from "./helpers/receiver.js";

// "Deliver again" delivers now (issue 43, item 8): a delivery waiting minutes for its next retry
// is made due at once and the worker woken, as the page's notice says, rather than left to its
// schedule; still with the same webhook-id.

const PASSWORD = "correct horse battery staple 42";
const silent = { info: () => {}, warn: () => {} };

for (const dialect of DIALECTS) {
  describe(`Deliver again on a pending delivery on ${dialect}`, () => {
    let h: Harness;
    let receiver: Receiver;
    let worker: DeliveryWorker;
    let serial = 0;

    before(async () => {
      // Retries minutes apart, and a poll as slow as it may be: only a wake claims at once.
      h = await createHarness({
        dialect,
        env: {
          SIGN_IN_RATE_LIMIT_PER_MIN: "0",
          WEBHOOK_RETRY_SCHEDULE: "5m,30m",
          WEBHOOK_POLL_INTERVAL_MS: "60000",
        },
      });
      receiver = await startReceiver();
      worker = createDeliveryWorker(h.services, silent);
    });
    after(async () => {
      await worker.stop();
      await receiver.close();
      await h.close();
    });

    /** A payment whose delivery failed once and waits for its retry minutes away; the owner signed in. */
    async function failedOnce() {
      serial++;
      const email = `owner${serial}.${dialect}@redeliver.example`;
      const { business } = await signedUpBusiness(h.services, {
        businessName: `Redeliver ${serial} Ltd`,
        email,
        password: PASSWORD,
      });
      await verifyBusiness(h.services, business.businessId);
      await h.services.webhooks.create(business, endpointAt(receiver.url));
      const account = await h.services.accounts.generatePermanent(business, CLI, permanentInputOf());
      await h.services.collections.sandboxTransfer(business, {
        accountNumber: account.account.accountNumber,
        amount: 100_00,
      });
      receiver.received.length = 0;
      receiver.answer = () => ({ status: 500 });
      assert.equal(await worker.runOnce(), 1);
      await worker.drain();
      assert.equal(receiver.received.length, 1);
      receiver.answer = () => ({ status: 200 });
      const [event] = (await h.services.events.list(business, { page: 1, limit: 10 })).items.filter(
        (e) => e.type === "payment.received",
      );
      assert.ok(event);
      const [delivery] = event.deliveries;
      assert.equal(delivery?.state, "pending");
      assert.ok(Date.parse(delivery?.nextAttemptAt ?? "") > Date.now() + 60_000, "the retry is minutes away");
      assert.equal(await worker.runOnce(), 0, "nothing is due before it");
      const owner = pageClient(h.app);
      const login = await owner.get("/dashboard/login");
      await owner.post("/dashboard/login", { _csrf: login.token ?? "", email, password: PASSWORD });
      return { owner, event };
    }

    test("Deliver again makes it due now: the next claim attempts it, with the same webhook-id", async () => {
      const { owner, event } = await failedOnce();
      const page = await owner.get(`/dashboard/events/${event.id}`);
      const asked = await owner.post(`/dashboard/events/${event.id}/redeliver`, { _csrf: page.token ?? "" });
      assert.equal(asked.statusCode, 303);
      const shown = await owner.get(asked.headers.location as string);
      assert.match(shown.response.body, /Queued again: the worker delivers it within seconds/);
      assert.equal(await worker.runOnce(), 1, "attempted at the next claim, not at its retry");
      await worker.drain();
      assert.deepEqual(
        receiver.received.map((r) => [r.headers["webhook-id"], r.body.includes('"payment.received"')]),
        [
          [event.id, true],
          [event.id, true],
        ],
      );
    });

    test("the running worker is woken: it claims at once, not at its next poll a minute away", async () => {
      const { owner, event } = await failedOnce();
      // What the server's composition does: a redelivery wakes the process's worker.
      h.services.redelivery.onQueued(() => worker.wake());
      worker.start();
      const page = await owner.get(`/dashboard/events/${event.id}`);
      await owner.post(`/dashboard/events/${event.id}/redeliver`, { _csrf: page.token ?? "" });
      const deadline = Date.now() + 10_000;
      while (receiver.received.length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(receiver.received.length, 2, "delivered again well before the poll");
      assert.equal(receiver.received[1]?.headers["webhook-id"], event.id);
    });
  });
}
