import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { createDeliveryWorker } from "../src/compose/server.js";
import type { DeliveryWorker } from "../src/webhooks/delivery-worker.js";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./helpers/harness.js";
import { type Receiver, startReceiver } from "./helpers/receiver.js";

// The webhook and event routes over signed HTTP, on both databases: endpoints created, read,
// changed, rotated and deleted; a test event; attempts, redelivery and recovery after an outage.
// Deliveries go to real receivers on real ports, driven by the worker the server runs.

const silent = { info: () => {}, warn: () => {} };

for (const dialect of DIALECTS) {
  describe(`webhook routes on ${dialect}`, () => {
    let h: Harness;
    let business: TestBusiness;
    let other: TestBusiness;
    let worker: DeliveryWorker;
    let target: Receiver;
    before(async () => {
      h = await createHarness({ dialect, env: { WEBHOOK_RETRY_SCHEDULE: "1ms,1ms" } });
      business = await h.createBusiness({ name: "Routed Ltd" });
      other = await h.createBusiness({ name: "Other Ltd" });
      worker = createDeliveryWorker(h.services, silent);
    });
    afterEach(async () => {
      await worker.drain();
      await target?.close();
    });
    after(() => h.close());

    let requests = 0;
    const call = async (
      method: "GET" | "POST" | "PATCH" | "DELETE",
      path: string,
      body?: Record<string, unknown>,
      as = business,
    ) => {
      // Each write differs (v1 signs the body and the timestamp): a field the routes ignore.
      const sent = method === "GET" || method === "DELETE" ? body : { ...body, n: ++requests };
      return h.request({ method, url: `${API}${path}`, ...(sent ? { body: sent } : {}), as });
    };
    const deliver = async () => {
      for (let i = 0; i < 10 && (await worker.runOnce()) > 0; i++) await worker.drain();
      await worker.drain();
    };

    test("an endpoint's life over HTTP: create, read, change, test, rotate, delete", async () => {
      target = await startReceiver();
      const created = await call("POST", "/webhooks", { url: target.url, events: ["payment.received"] });
      assert.equal(created.statusCode, 201, created.body);
      const endpoint = created.json().data;
      assert.match(endpoint.id, /^we_[0-9a-f]{32}$/);
      assert.match(endpoint.secret, /^whsec_/);
      assert.deepEqual(endpoint.events, ["payment.received"]);

      const listed = await call("GET", "/webhooks");
      assert.equal(listed.statusCode, 200);
      const { secret: _, ...withoutSecret } = endpoint;
      assert.deepEqual(listed.json().data, [withoutSecret], "the secret is shown once only");
      assert.deepEqual((await call("GET", `/webhooks/${endpoint.id}`)).json().data, withoutSecret);
      assertFailCode(
        await call("GET", `/webhooks/${endpoint.id}`, undefined, other),
        404,
        "WEBHOOK_NOT_FOUND",
      );

      const changed = await call("PATCH", `/webhooks/${endpoint.id}`, { events: null });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(changed.json().data.events, null);
      assertValidation(
        await call("PATCH", `/webhooks/${endpoint.id}`, { enabled: "yes" }),
        "enabled must be true or false",
      );
      assertValidation(
        await call("POST", "/webhooks", { url: "not a url" }),
        "url must be an absolute http or https URL",
      );

      const tested = await call("POST", `/webhooks/${endpoint.id}/test`);
      assert.equal(tested.statusCode, 202, tested.body);
      await deliver();
      assert.equal(target.received.length, 1);
      const delivered = new Webhook(endpoint.secret).verify(
        target.received[0]?.body ?? "",
        target.received[0]?.headers as Record<string, string>,
      ) as { type: string };
      assert.equal(delivered.type, "webhook.test");
      assert.equal(target.received[0]?.headers["webhook-id"], tested.json().data.eventId);

      const rotated = await call("POST", `/webhooks/${endpoint.id}/rotate-secret`);
      assert.equal(rotated.statusCode, 200, rotated.body);
      assert.notEqual(rotated.json().data.secret, endpoint.secret);

      const deleted = await call("DELETE", `/webhooks/${endpoint.id}`);
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(deleted.json().data, { id: endpoint.id, deleted: true });
      assertFailCode(await call("GET", `/webhooks/${endpoint.id}`), 404, "WEBHOOK_NOT_FOUND");
      assertFailCode(await call("DELETE", `/webhooks/${endpoint.id}`), 404, "WEBHOOK_NOT_FOUND");
    });

    test("at most 10 endpoints a business", async () => {
      const owner = await h.createBusiness({ name: "Many Hooks Ltd" });
      for (let i = 0; i < 10; i++) {
        const created = await call("POST", "/webhooks", { url: `http://127.0.0.1:9/h${i}` }, owner);
        assert.equal(created.statusCode, 201, created.body);
      }
      assertFailCode(
        await call("POST", "/webhooks", { url: "http://127.0.0.1:9/h10" }, owner),
        422,
        "WEBHOOK_LIMIT_REACHED",
      );
    });

    test("after an outage: attempts are shown, one event is redelivered, and recover re-sends since a time", async () => {
      target = await startReceiver();
      target.answer = () => ({ status: 500 });
      const endpoint = (await call("POST", "/webhooks", { url: target.url })).json().data;
      const since = new Date().toISOString();
      const number = (await call("POST", "/account/generate", customer())).json().data.accountNumber;
      for (const amount of [100, 200]) {
        const paid = await call("POST", "/sandbox/transfers", { accountNumber: number, amount });
        assert.equal(paid.statusCode, 201, paid.body);
      }
      // Three attempts each (the first and two retries), all failing: the deliveries fail.
      for (let i = 0; i < 3; i++) {
        await deliver();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const events = (await call("GET", "/events?type=payment.received")).json().data;
      assert.equal(events.length, 2);
      for (const event of events)
        assert.deepEqual(
          event.deliveries.map((d: { state: string }) => d.state),
          ["failed"],
        );
      const attempts = await call("GET", `/events/${events[0].id}/attempts`);
      assert.equal(attempts.statusCode, 200, attempts.body);
      assert.deepEqual(
        attempts
          .json()
          .data.map((a: { attempt: number; statusCode: number; responseExcerpt: string }) => [
            a.attempt,
            a.statusCode,
            a.responseExcerpt,
          ]),
        [
          [1, 500, "ok"],
          [2, 500, "ok"],
          [3, 500, "ok"],
        ],
      );
      assertFailCode(
        await call("GET", `/events/${events[0].id}/attempts`, undefined, other),
        404,
        "EVENT_NOT_FOUND",
      );

      target.answer = () => ({ status: 200 });
      target.received.length = 0;
      const redelivered = await call("POST", `/events/${events[0].id}/redeliver`, {
        endpointId: endpoint.id,
      });
      assert.equal(redelivered.statusCode, 202, redelivered.body);
      assert.deepEqual(redelivered.json().data, { queued: 1 });
      await deliver();
      assert.deepEqual(
        target.received.map((r) => r.headers["webhook-id"]),
        [events[0].id],
      );

      const recovered = await call("POST", `/webhooks/${endpoint.id}/recover`, { since });
      assert.equal(recovered.statusCode, 202, recovered.body);
      assert.deepEqual(
        recovered.json().data,
        { queued: 2 },
        "both payments since then, the redelivered one too",
      );
      await deliver();
      assert.equal(target.received.length, 3);
      assert.deepEqual(
        new Set(target.received.map((r) => r.headers["webhook-id"])),
        new Set(events.map((e: { id: string }) => e.id)),
      );
      assertValidation(await call("POST", `/webhooks/${endpoint.id}/recover`, {}), "since is required");
      assertValidation(
        await call("POST", `/webhooks/${endpoint.id}/recover`, { since: "yesterday" }),
        "since must be an ISO 8601 date-time with a zone",
      );
      assertFailCode(await call("POST", "/events/evt_nope/redeliver"), 404, "EVENT_NOT_FOUND");
      // The body's own rule answers 404 for an endpoint id that cannot exist, before the event is
      // looked up: the route's contract passes the rule's answer through as it is.
      assertFailCode(
        await call("POST", "/events/evt_nope/redeliver", { endpointId: "not-an-endpoint" }),
        404,
        "WEBHOOK_NOT_FOUND",
      );
      assertValidation(
        await call("PATCH", `/webhooks/${endpoint.id}`, { enabled: "yes" }),
        "enabled must be true or false",
      );
    });
  });
}
