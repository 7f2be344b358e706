import type { Kysely } from "kysely";

// Issue 29: what each endpoint has in flight is read at every claim (`state = 'pending' and
// lease_until >= now`). With the index on (lease_until, endpoint_id), SQLite's planner chose the
// due index instead (an equality on state beats a range) and read every pending delivery: 2.7 ms
// a claim under a backlog of 30,000. Leading with state, this index serves the equality and the
// range together, and covers the endpoint: a claim reads the few leased rows only.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_lease_idx").execute();
  await db.schema
    .createIndex("webhook_deliveries_leased_idx")
    .on("webhook_deliveries")
    .columns(["state", "lease_until", "endpoint_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_leased_idx").execute();
  await db.schema
    .createIndex("webhook_deliveries_lease_idx")
    .on("webhook_deliveries")
    .columns(["lease_until", "endpoint_id"])
    .execute();
}
