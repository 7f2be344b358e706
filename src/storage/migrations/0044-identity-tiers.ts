import { type Kysely, PostgresAdapter, sql } from "kysely";
import { POSTINGS_FUNCTION } from "../postgres/transfer-posting.js";

// Issue 46, item 5: an account's KYC tier follows the identity it holds (a BVN or a NIN: tier 1;
// both: tier 2), and what it may receive is limited per tier (accounts/tiers.ts). The second
// identity is kept as the first is, a keyed fingerprint and its last 4 digits, never the number.
// The day's received total is a running total on the account's row, moved by the transfer's own
// write under the account's lock (received_day: the Africa/Lagos day it counts), so a limit is
// checked without a sum per notification. A declined credit's event is written once per session
// id (declined_credits), however often the bank sends it again. An operator may set a business's
// KYC level (businesses.kyc_tier): its accounts' tiers are at least that, written on the accounts
// when it is set and when an account is opened or re-issued, so a credit reads one column.
//
// The transfer's posting (vas_post_transfers, 0040) writes the day's total now: dropped and made
// again from the statement (storage/postgres/transfer-posting.ts).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("accounts")
    .addColumn("tier", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable("accounts").addColumn("second_identity_fingerprint", "text").execute();
  await db.schema.alterTable("accounts").addColumn("second_identity_last4", "text").execute();
  await db.schema.alterTable("accounts").addColumn("received_day", "text").execute();
  await db.schema
    .alterTable("accounts")
    .addColumn("received_on_day", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  // The operator's KYC level of a business: a floor under its accounts' tiers (null: none).
  await db.schema.alterTable("businesses").addColumn("kyc_tier", "integer").execute();
  await db.schema
    .createTable("declined_credits")
    .addColumn("session_id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("account_number", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("declined_at", "text", (c) => c.notNull())
    .execute();
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_post_transfers`.execute(db);
  await sql.raw(POSTINGS_FUNCTION.create).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("declined_credits").execute();
  await db.schema.alterTable("businesses").dropColumn("kyc_tier").execute();
  for (const column of [
    "tier",
    "second_identity_fingerprint",
    "second_identity_last4",
    "received_day",
    "received_on_day",
  ]) {
    await db.schema.alterTable("accounts").dropColumn(column).execute();
  }
}
