import { type Kysely, PostgresAdapter, sql } from "kysely";

// Collections: inbound transfers, the double-entry ledger, and what an account needs to accept
// payments (an expected amount, deactivation, running totals). Money columns are `bigint`:
// integer kobo, 64-bit on PostgreSQL (int4 would stop at NGN 21 million), INTEGER affinity on
// SQLite. See docs/ledger.md for the accounts and the entries' fields.
//
// The service's own ledger accounts (bank settlement, fee revenue) are kept per business, so
// transfers of different businesses never touch the same row; totals are sums when read.
// Entries and transactions are append-only: triggers refuse UPDATE and DELETE on both dialects.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("expected_amount", "bigint").execute();
  await db.schema.alterTable("accounts").addColumn("deactivated_at", "text").execute();
  await db.schema
    .alterTable("accounts")
    .addColumn("total_received", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("accounts")
    .addColumn("transfer_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("businesses")
    .addColumn("fee_basis_points", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("businesses").addColumn("fee_cap_kobo", "bigint").execute();

  await db.schema
    .createTable("ledger_accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("balance", "bigint", (c) => c.notNull())
    .addColumn("entry_count", "integer", (c) => c.notNull())
    .addColumn("last_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("ledger_accounts_business_kind_key", ["business_id", "kind"])
    .execute();

  await db.schema
    .createTable("transactions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("account_number", "text", (c) => c.notNull())
    .addColumn("ordinal", "integer", (c) => c.notNull())
    .addColumn("account_ordinal", "integer", (c) => c.notNull())
    .addColumn("session_id", "text", (c) => c.notNull().unique())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("fee", "bigint", (c) => c.notNull())
    .addColumn("net_amount", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("balance_after", "bigint", (c) => c.notNull())
    .addColumn("payer_name", "text", (c) => c.notNull())
    .addColumn("payer_account_number", "text", (c) => c.notNull())
    .addColumn("payer_bank_name", "text", (c) => c.notNull())
    .addColumn("narration", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("value_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("transactions_business_ordinal_key", ["business_id", "ordinal"])
    .addUniqueConstraint("transactions_account_ordinal_key", ["account_id", "account_ordinal"])
    .execute();
  // `from`/`to` bounds: the first and last ordinal recorded in a time range, one seek each.
  await db.schema
    .createIndex("transactions_business_time_idx")
    .on("transactions")
    .columns(["business_id", "created_at", "ordinal"])
    .execute();
  await db.schema
    .createIndex("transactions_account_time_idx")
    .on("transactions")
    .columns(["account_id", "created_at", "account_ordinal"])
    .execute();

  await db.schema
    .createTable("ledger_entries")
    .addColumn("ledger_account_id", "text", (c) => c.notNull().references("ledger_accounts.id"))
    .addColumn("sequence", "integer", (c) => c.notNull())
    .addColumn("transaction_id", "text", (c) => c.notNull().references("transactions.id"))
    .addColumn("business_id", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("balance_after", "bigint", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("previous_hash", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("ledger_entries_pkey", ["ledger_account_id", "sequence"])
    .execute();
  await db.schema
    .createIndex("ledger_entries_transaction_idx")
    .on("ledger_entries")
    .column("transaction_id")
    .execute();

  await refuseChanges(db, ["transactions", "ledger_entries"]);
}

/** Triggers that make the tables append-only (docs/ledger.md names the one way around them). */
async function refuseChanges(db: Kysely<unknown>, tables: string[]): Promise<void> {
  // A failed probe query would abort PostgreSQL's migration transaction: ask the adapter instead.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`
      create function vas_refuse_change() returns trigger language plpgsql as $$
      begin
        raise exception '% is append-only: % refused', tg_table_name, tg_op using errcode = 'VAS01';
      end
      $$`.execute(db);
  }
  for (const table of tables) {
    if (postgres) {
      await sql
        .raw(
          `create trigger ${table}_append_only before update or delete on ${table} ` +
            "for each row execute function vas_refuse_change()",
        )
        .execute(db);
      continue;
    }
    for (const operation of ["update", "delete"]) {
      await sql
        .raw(
          `create trigger ${table}_no_${operation} before ${operation} on ${table} ` +
            `begin select raise(abort, '${table} is append-only: ${operation.toUpperCase()} refused'); end`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("ledger_entries").execute();
  await db.schema.dropTable("transactions").execute();
  await db.schema.dropTable("ledger_accounts").execute();
}
