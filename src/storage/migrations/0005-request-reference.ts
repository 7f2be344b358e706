import type { Kysely } from "kysely";

// The reference a request sends to the bank, kept with its replay / Idempotency-Key record from
// the moment it is claimed: a retry of the same request after a failure sends the same
// reference, so a bank that dedupes on it can never open a second account.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("request_records").addColumn("reference", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("request_records").dropColumn("reference").execute();
}
