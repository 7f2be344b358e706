import type { Kysely } from "kysely";

// Who had each account number issued: the actor (an API key, a dashboard user, an operator,
// the CLI) recorded beside the number. Null for numbers issued before this was kept.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("account_numbers").addColumn("issued_by_type", "text").execute();
  await db.schema.alterTable("account_numbers").addColumn("issued_by_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("account_numbers").dropColumn("issued_by_id").execute();
  await db.schema.alterTable("account_numbers").dropColumn("issued_by_type").execute();
}
