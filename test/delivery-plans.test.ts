import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CompiledQuery, sql } from "kysely";
import type { Storage } from "../src/storage/database.js";
import { leasedPerEndpoint } from "../src/storage/delivery-repository.js";
import { DIALECTS, migratedStorage } from "./helpers/databases.js";

// Every claim of the delivery worker reads what each endpoint has in flight: under a backlog of
// tens of thousands of pending deliveries, that must read the few leased rows, never the backlog
// (issue 29: SQLite read every pending delivery, 2.7 ms a claim, until migration 0034).
for (const dialect of DIALECTS) {
  describe(`the delivery worker's reads on ${dialect}`, () => {
    let storage: Storage;
    let close: () => Promise<void>;

    before(async () => {
      const opened = await migratedStorage(dialect);
      storage = opened.storage;
      close = opened.close;
    });
    after(() => close());

    /** A backlog: `pending` deliveries to one endpoint, of which `leased` are in flight. */
    async function backlog(pending: number, leased: number): Promise<void> {
      const now = new Date().toISOString();
      const lease = new Date(Date.now() + 60_000).toISOString();
      const businessId = "bus_plans";
      await sql`insert into businesses (id, name, verification_status, account_count, created_at, updated_at)
        values (${businessId}, 'Plans Ltd', 'completed', 0, ${now}, ${now})`.execute(storage.db);
      await sql`insert into webhook_endpoints (id, business_id, url, enabled, secret_ciphertext, consecutive_failures, created_at, updated_at)
        values ('we_plans', ${businessId}, 'https://example.com/hook', 1, 'x', 0, ${now}, ${now})`.execute(
        storage.db,
      );
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${pending})
        insert into events (id, business_id, sequence, type, account_number, data, created_at)
        select 'evt_' || i, ${businessId}, i, 'payment.received', '0000000001', '{}', ${now} from n`.execute(
        storage.db,
      );
      await sql`insert into webhook_deliveries (id, event_id, endpoint_id, business_id, state, attempts, next_attempt_at,
          lease_until, created_at, sequence, account_number)
        select 'dlv_' || e.sequence, e.id, 'we_plans', ${businessId}, 'pending', 0, ${now},
          case when e.sequence <= ${leased} then ${lease} else null end, ${now}, e.sequence, e.account_number
        from events e where e.business_id = ${businessId}`.execute(storage.db);
      await sql`analyze`.execute(storage.db);
    }

    test("what each endpoint has in flight is an index range over the leased deliveries, however deep the backlog", async () => {
      await backlog(20_000, 4);
      const query = leasedPerEndpoint(storage.db, new Date().toISOString()).compile();
      const explain = dialect === "sqlite" ? "explain query plan " : "explain ";
      const rows = await storage.db.executeQuery(
        CompiledQuery.raw(explain + query.sql, [...query.parameters]),
      );
      const plan = JSON.stringify(rows.rows);
      assert.match(plan, /webhook_deliveries_leased_idx/, plan);
      assert.doesNotMatch(plan, /Seq Scan|SCAN webhook_deliveries|webhook_deliveries_due_idx/, plan);
      const counted = await leasedPerEndpoint(storage.db, new Date().toISOString()).execute();
      assert.deepEqual(
        counted.map((row) => [row.endpoint_id, Number(row.n)]),
        [["we_plans", 4]],
      );
    });
  });
}
