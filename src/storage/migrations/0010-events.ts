import type { Kysely } from "kysely";

// Issue 11: events written in the same transaction as the change they describe (an outbox),
// webhook endpoints, and deliveries that are rows (claimed with a lease by whichever process
// gets there first), each attempt kept. See docs/webhooks.md.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    // 1, 2, 3... per business, from a counter advanced in the event's own transaction: no gaps.
    .addColumn("sequence", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("account_number", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("events_business_sequence_key", ["business_id", "sequence"])
    .execute();
  await db.schema
    .createIndex("events_business_type_idx")
    .on("events")
    .columns(["business_id", "type", "sequence"])
    .execute();
  await db.schema
    .createIndex("events_business_time_idx")
    .on("events")
    .columns(["business_id", "created_at", "sequence"])
    .execute();

  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("url", "text", (c) => c.notNull())
    // JSON array of event types, or null for every type.
    .addColumn("event_types", "text")
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("disabled_reason", "text")
    .addColumn("secret_ciphertext", "text", (c) => c.notNull())
    .addColumn("previous_secret_ciphertext", "text")
    .addColumn("previous_secret_until", "text")
    // When the current run of failed attempts began (null after a success), and its length.
    .addColumn("failing_since", "text")
    .addColumn("consecutive_failures", "integer", (c) => c.notNull().defaultTo(0))
    // Deleted endpoints stay (their deliveries and attempts refer to them), hidden from the API.
    .addColumn("deleted_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_endpoints_business_idx")
    .on("webhook_endpoints")
    .columns(["business_id", "created_at"])
    .execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("event_id", "text", (c) => c.notNull().references("events.id"))
    .addColumn("endpoint_id", "text", (c) => c.notNull().references("webhook_endpoints.id"))
    .addColumn("business_id", "text", (c) => c.notNull())
    // pending (due at next_attempt_at), delivered, failed (retries exhausted), cancelled.
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    // While a process delivers it: after this, it is presumed dead and the delivery is due again.
    .addColumn("lease_until", "text")
    .addColumn("last_status", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("delivered_at", "text")
    .addUniqueConstraint("webhook_deliveries_event_endpoint_key", ["event_id", "endpoint_id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due_idx")
    .on("webhook_deliveries")
    .columns(["state", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_endpoint_idx")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "state"])
    .execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("delivery_id", "text", (c) => c.notNull().references("webhook_deliveries.id"))
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("endpoint_id", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("response_excerpt", "text")
    .addColumn("error", "text")
    .execute();
  await db.schema
    .createIndex("webhook_attempts_event_idx")
    .on("webhook_attempts")
    .columns(["event_id", "started_at"])
    .execute();

  // account.expired is emitted once per account: this marks that it was.
  await db.schema.alterTable("accounts").addColumn("expired_event_at", "text").execute();
  await db.schema
    .createIndex("accounts_expiry_due_idx")
    .on("accounts")
    .columns(["expired_event_at", "expires_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("accounts_expiry_due_idx").execute();
  await db.schema.alterTable("accounts").dropColumn("expired_event_at").execute();
  await db.schema.dropTable("webhook_attempts").execute();
  await db.schema.dropTable("webhook_deliveries").execute();
  await db.schema.dropTable("webhook_endpoints").execute();
  await db.schema.dropTable("events").execute();
}
