import type { Kysely } from "kysely";

// Every change of a business's verification status: who (an actor type and id), when, from,
// to and why. Append-only: the history shown to the business and to operators.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("verification_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("from_status", "text", (c) => c.notNull())
    .addColumn("to_status", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("verification_events_business_idx")
    .on("verification_events")
    .columns(["business_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("verification_events").execute();
}
