import type { Kysely } from "kysely";

// Issue 13: the business dashboard and the operator console. People who sign in (business users
// and operators, one table with a role), their server-side sessions, the details a business
// submits for verification, and an audit log of sign-ins and key changes.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    // business (signs in to /dashboard, belongs to one business) or operator (/admin).
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("business_id", "text", (c) => c.references("businesses.id"))
    // Trimmed and lower-cased.
    .addColumn("email", "text", (c) => c.notNull())
    // argon2id, in its PHC string form (algorithm, parameters, salt and hash).
    .addColumn("password_hash", "text", (c) => c.notNull())
    // The TOTP secret sealed by the master key; enabled once a first code was confirmed.
    .addColumn("totp_secret_ciphertext", "text")
    .addColumn("totp_enabled_at", "text")
    // The last time step a code was accepted for: a code is good once.
    .addColumn("totp_last_step", "bigint")
    // Consecutive failed sign-ins, and until when sign-in is refused after too many.
    .addColumn("failed_logins", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("locked_until", "text")
    .addColumn("password_changed_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("users_role_email_key", ["role", "email"])
    .execute();

  await db.schema
    .createTable("dashboard_sessions")
    // SHA-256 of the cookie's token: the token itself is never stored.
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    // 1 once the user passed every factor; 0 between the password and the TOTP code.
    .addColumn("verified", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    // The absolute end, whatever the activity.
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema
    .createIndex("dashboard_sessions_user_idx")
    .on("dashboard_sessions")
    .column("user_id")
    .execute();

  await db.schema
    .createTable("business_profiles")
    .addColumn("business_id", "text", (c) => c.primaryKey().references("businesses.id"))
    .addColumn("registered_name", "text", (c) => c.notNull())
    .addColumn("rc_number", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("contact_name", "text", (c) => c.notNull())
    .addColumn("contact_email", "text", (c) => c.notNull())
    .addColumn("contact_phone", "text", (c) => c.notNull())
    .addColumn("submitted_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text")
    // user, operator, cli, api_key; the id where there is one.
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("action", "text", (c) => c.notNull())
    // JSON: what the action concerned (a key's id, an email that failed to sign in).
    .addColumn("detail", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("audit_log_business_idx")
    .on("audit_log")
    .columns(["business_id", "created_at"])
    .execute();

  // The dashboard finds a business's accounts by email, temporary ones included.
  await db.schema
    .createIndex("accounts_business_email_idx")
    .on("accounts")
    .columns(["business_id", "email"])
    .execute();

  // When a key last authenticated a request (recorded at most once a minute per key).
  await db.schema.alterTable("api_keys").addColumn("last_used_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("last_used_at").execute();
  await db.schema.dropIndex("accounts_business_email_idx").execute();
  await db.schema.dropTable("audit_log").execute();
  await db.schema.dropTable("business_profiles").execute();
  await db.schema.dropTable("dashboard_sessions").execute();
  await db.schema.dropTable("users").execute();
}
