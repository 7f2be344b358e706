import type { Kysely } from "kysely";

// Replay protection and Idempotency-Key: one row per (business, kind, key), holding the first
// request's fingerprint and, once it finished, its response.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("request_records")
    .addColumn("business_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("response", "text")
    .addColumn("locked_until", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("request_records_pkey", ["business_id", "kind", "key"])
    .execute();
  await db.schema
    .createIndex("request_records_expires_idx")
    .on("request_records")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("request_records").execute();
}
