import type { Kysely } from "kysely";

// Issue 28, item 11: the console finds a customer's accounts by email across every business
// (a customer writes to support, not to the business): an index on the email alone.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("accounts_email_idx").on("accounts").column("email").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("accounts_email_idx").execute();
}
