import type { Kysely } from "kysely";

// Sign-in attempts are counted before a password or a code is checked, per subject (an email
// from untrusted clients, a device cookie, a user's second factor), so that concurrent guesses
// from any number of processes are each counted: the count moves out of the users table, where
// it was read before the failures were added up. Unknown emails are counted the same way, so
// the lockout answers alike for them.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sign_in_attempts")
    // SHA-256 of the subject: no email is kept here in plaintext.
    .addColumn("subject", "text", (col) => col.primaryKey())
    .addColumn("attempts", "integer", (col) => col.notNull())
    .addColumn("window_ends_at", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("sign_in_attempts_window_idx")
    .on("sign_in_attempts")
    .column("window_ends_at")
    .execute();
  await db.schema.alterTable("users").dropColumn("failed_logins").execute();
  await db.schema.alterTable("users").dropColumn("locked_until").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("failed_logins", "integer", (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("users").addColumn("locked_until", "text").execute();
  await db.schema.dropTable("sign_in_attempts").execute();
}
