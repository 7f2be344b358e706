import type { Kysely } from "kysely";

// The console's Security page lists an operator's own recent activity: the audit log read by
// actor, newest first, as the dashboard reads it by business (audit_log_business_idx).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("audit_log_actor_idx")
    .on("audit_log")
    .columns(["actor_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("audit_log_actor_idx").execute();
}
