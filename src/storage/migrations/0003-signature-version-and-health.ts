import type { Kysely } from "kysely";

// api_keys.min_signature_version: the oldest signature scheme a key accepts (1 = the
// specification's, 2 = the one that binds method, path, query and Idempotency-Key too).
// health_probe: one row that the readiness check rewrites, to prove the database takes writes.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("api_keys")
    .addColumn("min_signature_version", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable("health_probe")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("checked_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("health_probe").execute();
  await db.schema.alterTable("api_keys").dropColumn("min_signature_version").execute();
}
