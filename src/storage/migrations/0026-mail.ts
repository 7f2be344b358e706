import { type Kysely, sql } from "kysely";

// Issue 28, item 1: outgoing mail. Each message is queued in `mail_outbox` and sent by a job
// (retried when the server refuses or cannot be reached), never inside a request. Its subject
// and bodies are sealed with the master key (a reset or invitation link is a secret) and dropped
// once it is sent; what stays is who was mailed what, when.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("mail_outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("business_id", "text")
    .addColumn("sealed", "text")
    .addColumn("status", "text", (c) =>
      c.notNull().defaultTo("queued").check(sql`status in ('queued', 'sent', 'failed')`),
    )
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("claimed_until", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("sent_at", "text")
    .addCheckConstraint("mail_outbox_sealed_until_sent", sql`(status = 'queued') = (sealed is not null)`)
    .execute();
  await db.schema
    .createIndex("mail_outbox_due_idx")
    .on("mail_outbox")
    .columns(["status", "next_attempt_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("mail_outbox").execute();
}
