import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { createDeliveryWorker } from "../src/compose/server.js";
import { openServices } from "../src/compose/services.js";
import { assertFailCode, assertValidation } from "./helpers/assertions.js";
import { DIALECTS } from "./helpers/databases.js";
import {
  API,
  createHarness,
  customer,
  endpointAt,
  type Harness,
  permanentInputOf,
  type TestBusiness,
  testConfig,
} from "./helpers/harness.js";
import { notification } from "./helpers/notifications.js";

// Events (issue 11): written in the same transaction as the change they describe, numbered per
// business without gaps, readable through GET /events; account.expired emitted once per account
// whichever process gets there first; a fault before the commit leaves neither change nor event.

const MINUTE = 60_000;
let clock = Date.parse("2026-07-01T10:00:00.000Z");
const now = () => clock;

interface EventBody {
  id: string;
  type: string;
  sequence: number;
  accountNumber: string | null;
  createdAt: string;
  data: Record<string, unknown>;
  deliveries: unknown[];
}

for (const dialect of DIALECTS) {
  describe(`events on ${dialect}`, () => {
    const masterKey = randomBytes(32);
    let h: Harness;
    let business: TestBusiness;
    let other: TestBusiness;
    before(async () => {
      h = await createHarness({ dialect, now, masterKey });
      business = await h.createBusiness({ name: "Evented Ltd" });
      other = await h.createBusiness({ name: "Quiet Ltd" });
    });
    after(() => h.close());

    const get = (url: string, as = business) => h.request({ url: `${API}${url}`, as });
    const events = async (query = "", as = business) => {
      const response = await get(`/events${query}`, as);
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { data: EventBody[]; pagination: { total: number } };
    };
    const generate = async (body: Record<string, unknown> = customer()) => {
      const response = await h.request({ url: `${API}/account/generate`, body, as: business });
      assert.ok(response.statusCode < 300, response.body);
      return response.json().data.accountNumber as string;
    };

    test("each change writes its event: payment, re-issue, deactivate, reactivate, numbered per business", async () => {
      const body = customer();
      const first = await generate(body);
      const paid = await h.services.collections.receive(
        notification(first, 12_345, new Date(clock).toISOString()),
      );
      clock += 1_000;
      const second = await generate(body);
      // v1 signs the body and the timestamp: the clock moves so that each POST is a new request.
      const post = (path: string) => {
        clock += 1;
        return h.request({ url: `${API}${path}`, body: {}, as: business });
      };
      assert.equal((await post(`/account/${second}/deactivate`)).statusCode, 200);
      assert.equal((await post(`/account/${second}/reactivate`)).statusCode, 200);

      const listed = await events();
      assert.deepEqual(
        listed.data.map((e) => [e.sequence, e.type, e.accountNumber]),
        [
          [4, "account.reactivated", second],
          [3, "account.deactivated", second],
          [2, "account.reissued", second],
          [1, "payment.received", first],
        ],
      );
      assert.equal(listed.pagination.total, 4);
      const payment = listed.data[3] as EventBody;
      assert.match(payment.id, /^evt_[0-9a-f]{32}$/);
      assert.deepEqual(payment.data, { ...paid.transaction, payment: null });
      assert.equal(payment.createdAt, paid.transaction.createdAt, "the event is stamped with the change");
      assert.deepEqual(listed.data[2]?.data, {
        email: body.email,
        previousAccountNumber: first,
        accountNumber: second,
        accountName: listed.data[2]?.data.accountName,
        bankName: "Virtual Bank",
        reissuedAt: listed.data[2]?.createdAt,
      });
      assert.equal((listed.data[1]?.data as { status?: string } | undefined)?.status, "deactivated");
      assert.deepEqual(payment.deliveries, [], "no endpoint, no delivery");

      const one = await get(`/events/${payment.id}`);
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual(one.json().data, payment);
      assertFailCode(await get(`/events/${payment.id}`, other), 404, "EVENT_NOT_FOUND");
      assertFailCode(await get("/events/evt_nope"), 404, "EVENT_NOT_FOUND");
      assert.equal((await events("", other)).pagination.total, 0, "events are the business's own");

      const onlyPayments = await events("?type=payment.received");
      assert.deepEqual(
        onlyPayments.data.map((e) => e.id),
        [payment.id],
      );
      const paged = await events("?limit=3&page=2");
      assert.deepEqual(
        paged.data.map((e) => e.sequence),
        [1],
      );
      assertValidation(
        await get("/events?type=payment.sent"),
        "type must be one of payment.received, account.expired, account.reissued, account.deactivated, account.reactivated, account.updated, endpoint.disabled, endpoint.enabled, payout.successful, payout.failed, payout.reversed, refund.successful, refund.failed, settlement.successful, settlement.failed, settlement_account.updated, payment.declined, payment.held, payment.accepted, payment.returned, payment.blocked, payment.released, webhook.test",
      );
    });

    test("account.expired is emitted once per account, by whichever of two processes gets there first", async () => {
      const expiring = await h.request({
        url: `${API}/account/generate/temporary`,
        body: customer({ duration: 5 }),
        as: other,
      });
      const number = expiring.json().data.accountNumber as string;
      assert.equal(await h.services.lifecycle.emitExpirations(), 0, "not yet expired");
      clock += 5 * MINUTE;
      // A second process on the same database.
      const second = await openServices(testConfig(h.database, masterKey, { DATA_DIR: h.dir }), { now });
      const emitters = [h.services.lifecycle, second.lifecycle];
      try {
        // On SQLite two connections in one process cannot wait for each other (the driver is
        // synchronous: a busy wait blocks the event loop the other needs), so there the two
        // processes take turns; on PostgreSQL they race.
        const runs = emitters.flatMap((lifecycle) => [
          () => lifecycle.emitExpirations(),
          () => lifecycle.emitExpirations(),
        ]);
        const counts =
          dialect === "postgres"
            ? await Promise.all(runs.map((run) => run()))
            : await runs.reduce<Promise<number[]>>(
                async (done, run) => [...(await done), await run()],
                Promise.resolve([]),
              );
        assert.equal(
          counts.reduce((a, b) => a + b, 0),
          1,
        );
      } finally {
        await second.close();
      }
      const expired = (await events("?type=account.expired", other)).data;
      assert.equal(expired.length, 1);
      assert.equal(expired[0]?.accountNumber, number);
      assert.equal((expired[0]?.data as { status?: string } | undefined)?.status, "expired");
      assert.equal(await h.services.lifecycle.emitExpirations(), 0, "never twice");
    });

    test("events older than EVENT_RETENTION_DAYS go, with their deliveries and attempts", async () => {
      const keeper = await h.createBusiness({ name: "Keeper Ltd" });
      const owner = { businessId: keeper.businessId, businessName: keeper.name };
      const endpoint = await h.services.webhooks.create(owner, endpointAt("http://127.0.0.1:9/closed"));
      const { account } = await h.services.accounts.generatePermanent(
        owner,
        { type: "cli", id: null },
        permanentInputOf(),
      );
      const pay = (amount: number) =>
        h.services.collections.receive(
          notification(account.accountNumber, amount, new Date(clock).toISOString()),
        );
      const old = [await pay(100), await pay(200)];
      const worker = createDeliveryWorker(h.services, { info: () => {}, warn: () => {} }, now);
      await worker.runOnce();
      await worker.drain();
      const [oldest] = (await events("?type=payment.received", keeper)).data.slice(-1);
      assert.equal(
        (await h.services.redelivery.attempts(owner, oldest?.id ?? "")).length,
        1,
        "an attempt was kept",
      );
      clock += 91 * 24 * 60 * MINUTE;
      await pay(300);
      // In batches of one: the two old events here, and older ones of the suite's other businesses.
      assert.ok((await h.services.events.prune(1)) >= 2);
      const kept = await events("", keeper);
      assert.equal(kept.pagination.total, 1);
      assert.deepEqual(
        kept.data.map((e) => (e.data as { amount: number }).amount),
        [300],
      );
      for (const gone of old)
        assert.equal(
          kept.data.some((e) => e.data.id === gone.transaction.id),
          false,
        );
      assertFailCode(await get(`/events/${oldest?.id}`, keeper), 404, "EVENT_NOT_FOUND");
      const attempts = await h.storage.db
        .selectFrom("webhook_attempts")
        .select("id")
        .where("event_id", "=", oldest?.id ?? "")
        .execute();
      assert.deepEqual(attempts, []);
      // The retention window is the recovery body's rule: the route's contract refuses it.
      const tooOld = await h.request({
        url: `${API}/webhooks/${endpoint.id}/recover`,
        body: { since: new Date(clock - 91 * 24 * 60 * MINUTE).toISOString() },
        as: keeper,
      });
      assertFailCode(tooOld, 400, "VALIDATION_FAILED");
      assert.equal(
        tooOld.json().message,
        "since must be within the last 90 days: older events are not kept (EVENT_RETENTION_DAYS)",
      );
    });

    test("a fault between the change and the commit leaves neither the change nor its event", async () => {
      const victim = await h.createBusiness({ name: "Faulty Ltd" });
      const response = await h.request({ url: `${API}/account/generate`, body: customer(), as: victim });
      const number = response.json().data.accountNumber as string;
      const trigger =
        dialect === "postgres"
          ? [
              sql`create function vas_test_fault() returns trigger language plpgsql as $$
                begin raise exception 'injected fault'; end $$`,
              sql.raw(
                `create trigger events_fault before insert on events for each row when (new.business_id = '${victim.businessId}') execute function vas_test_fault()`,
              ),
            ]
          : [
              sql.raw(
                `create trigger events_fault before insert on events when new.business_id = '${victim.businessId}' begin select raise(abort, 'injected fault'); end`,
              ),
            ];
      for (const statement of trigger) await statement.execute(h.storage.db);
      try {
        const failed = await h.services.collections
          .receive(notification(number, 5_000, new Date(clock).toISOString()))
          .catch((error: unknown) => error);
        assert.ok(failed instanceof Error && /injected fault/.test(failed.message), String(failed));
      } finally {
        await sql`drop trigger events_fault${sql.raw(dialect === "postgres" ? " on events" : "")}`.execute(
          h.storage.db,
        );
        if (dialect === "postgres") await sql`drop function vas_test_fault()`.execute(h.storage.db);
      }
      const db = h.storage.db;
      const transactions = await db
        .selectFrom("transactions")
        .select("id")
        .where("business_id", "=", victim.businessId)
        .execute();
      assert.deepEqual(transactions, [], "no transaction without its event");
      const entries = await db
        .selectFrom("ledger_entries")
        .select("hash")
        .where("business_id", "=", victim.businessId)
        .execute();
      assert.deepEqual(entries, []);
      const account = await h.services.lifecycle.get(
        { businessId: victim.businessId, businessName: "" },
        number,
      );
      assert.equal(account.totalReceived, 0);
      // The same notification once the fault is gone: recorded, with its event, sequence 1.
      await h.services.collections.receive(notification(number, 5_000, new Date(clock).toISOString()));
      const after = await events("", victim);
      assert.deepEqual(
        after.data.map((e) => [e.sequence, e.type]),
        [[1, "payment.received"]],
      );
    });
  });
}
