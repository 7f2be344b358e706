import { type Kysely, sql } from "kysely";

// Issue 28, item 11: operators are managed from the console. Each has a role (`reviewer`
// decides verifications; `admin` also sets fees and limits, resets two-factor, suspends and
// manages operators) and can be disabled (their sessions end, their sign-in is refused).
// The operators there are already become admins: until now every operator could do all of it.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("users").addColumn("operator_role", "text").execute();
  await db.schema.alterTable("users").addColumn("disabled_at", "text").execute();
  await sql`update users set operator_role = 'admin' where role = 'operator'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("users").dropColumn("disabled_at").execute();
  await db.schema.alterTable("users").dropColumn("operator_role").execute();
}
