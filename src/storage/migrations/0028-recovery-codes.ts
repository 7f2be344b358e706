import type { Kysely } from "kysely";

// Issue 28, item 4: recovery codes. Ten one-time codes come with two-factor sign-in, shown once;
// each is kept only as an HMAC under a service key (a dump of the database alone cannot be
// searched for them), and good once, instead of an authenticator's code at sign-in.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("recovery_codes")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .addPrimaryKeyConstraint("recovery_codes_pkey", ["user_id", "code_hash"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("recovery_codes").execute();
}
