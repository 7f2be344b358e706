import type { Kysely } from "kysely";

// Issue 28, item 4: "Forgot password". A reset link's token is kept only as its SHA-256; a link
// works once, for 30 minutes, and a newer one voids the older ones of the same user.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("password_resets")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema
    .createIndex("password_resets_user_idx")
    .on("password_resets")
    .columns(["user_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("password_resets").execute();
}
