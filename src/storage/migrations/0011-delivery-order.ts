import type { Kysely } from "kysely";

// Issue 18: events older than EVENT_RETENTION_DAYS are removed oldest first; deliveries carry their event's sequence and account number, so that one account's
// events are attempted in order per endpoint; an endpoint failing a run of attempts is paused
// until its next retry, then probed with one delivery.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("webhook_deliveries")
    .addColumn("sequence", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("webhook_deliveries").addColumn("account_number", "text").execute();
  await db.schema
    .createIndex("webhook_deliveries_order_idx")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "account_number", "sequence"])
    .execute();
  await db.schema.alterTable("webhook_endpoints").addColumn("paused_until", "text").execute();
  // What each endpoint has in flight: the leased deliveries, few at any time.
  await db.schema
    .createIndex("webhook_deliveries_lease_idx")
    .on("webhook_deliveries")
    .columns(["lease_until", "endpoint_id"])
    .execute();
  // Retention removes the oldest events first, across businesses.
  await db.schema.createIndex("events_time_idx").on("events").column("created_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("events_time_idx").execute();
  await db.schema.dropIndex("webhook_deliveries_lease_idx").execute();
  await db.schema.alterTable("webhook_endpoints").dropColumn("paused_until").execute();
  await db.schema.dropIndex("webhook_deliveries_order_idx").execute();
  await db.schema.alterTable("webhook_deliveries").dropColumn("account_number").execute();
  await db.schema.alterTable("webhook_deliveries").dropColumn("sequence").execute();
}
