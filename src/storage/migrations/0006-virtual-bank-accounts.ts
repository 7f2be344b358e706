import type { Kysely } from "kysely";

// The embedded Virtual Bank's own record of what it issued, as a real bank keeps one: keyed by
// the client's accountReference (so a retried create gets the same number), with a status
// (enabled, disabled) that the bank's enable / disable operations change.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("virtual_bank_accounts")
    .addColumn("reference", "text", (c) => c.primaryKey())
    .addColumn("account_number", "text", (c) => c.notNull().unique())
    .addColumn("account_name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("virtual_bank_accounts").execute();
}
