import { type Kysely, sql } from "kysely";

// Migrations are append-only and must run unchanged on SQLite and PostgreSQL: portable column
// types only (text, integer), timestamps as ISO text, no dialect-specific defaults.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("businesses")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("verification_status", "text", (c) => c.notNull())
    .addColumn("account_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("key_prefix", "text", (c) => c.notNull())
    .addColumn("secret_ciphertext", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("api_keys_business_idx")
    .on("api_keys")
    .columns(["business_id", "created_at"])
    .execute();

  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("ordinal", "integer", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("account_number", "text", (c) => c.notNull().unique())
    .addColumn("account_name", "text", (c) => c.notNull())
    .addColumn("customer_name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("identity_type", "text", (c) => c.notNull())
    .addColumn("identity_fingerprint", "text", (c) => c.notNull())
    .addColumn("identity_last4", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("duration_minutes", "integer")
    .addColumn("expires_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("accounts_business_ordinal_key", ["business_id", "ordinal"])
    .execute();
  await db.schema
    .createIndex("accounts_one_permanent_per_email")
    .on("accounts")
    .columns(["business_id", "email"])
    .unique()
    .where(sql.ref("kind"), "=", "permanent")
    .execute();

  await db.schema
    .createTable("account_numbers")
    .addColumn("account_number", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("business_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("reference", "text", (c) => c.notNull())
    .addColumn("issued_at", "text", (c) => c.notNull())
    .addColumn("retired_at", "text")
    .addUniqueConstraint("account_numbers_account_version_key", ["account_id", "version"])
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("counters")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["counters", "settings", "account_numbers", "accounts", "api_keys", "businesses"]) {
    await db.schema.dropTable(table).execute();
  }
}
