import type { Kysely } from "kysely";

// Issue 17: payment policies, conflicts kept, value-time filters, point-in-time balances.
//
// - accounts.amount_policy: how a temporary account's expected amount is applied (exact,
//   atLeast, accumulate; null on accounts without one).
// - transfer_conflicts: a session id seen again with other content, one row per distinct
//   content, counted; the first recording stands (see docs/ledger.md).
// - Value-time bounds for GET /transactions: (business or account, value_at, ordinal).
// - GET /balance?at=: the balance after an account's last entry before an instant, one seek on
//   (ledger_account_id, created_at, sequence).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("amount_policy", "text").execute();

  await db.schema
    .createTable("transfer_conflicts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("transaction_id", "text", (c) => c.notNull().references("transactions.id"))
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("account_number", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("first_seen_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addUniqueConstraint("transfer_conflicts_content_key", [
      "session_id",
      "account_number",
      "amount",
      "currency",
    ])
    .execute();
  await db.schema
    .createIndex("transfer_conflicts_seen_idx")
    .on("transfer_conflicts")
    .columns(["last_seen_at", "id"])
    .execute();

  await db.schema
    .createIndex("transactions_business_value_idx")
    .on("transactions")
    .columns(["business_id", "value_at", "ordinal"])
    .execute();
  await db.schema
    .createIndex("transactions_account_value_idx")
    .on("transactions")
    .columns(["account_id", "value_at", "account_ordinal"])
    .execute();
  await db.schema
    .createIndex("ledger_entries_time_idx")
    .on("ledger_entries")
    .columns(["ledger_account_id", "created_at", "sequence"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("ledger_entries_time_idx").execute();
  await db.schema.dropIndex("transactions_account_value_idx").execute();
  await db.schema.dropIndex("transactions_business_value_idx").execute();
  await db.schema.dropTable("transfer_conflicts").execute();
  await db.schema.alterTable("accounts").dropColumn("amount_policy").execute();
}
