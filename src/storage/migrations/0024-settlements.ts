import { type Kysely, sql } from "kysely";

// Issue 26, item 6: settlement to the business's own bank account.
//
// - `settlement_terms`: a business's settlement account (named by the bank's name enquiry; when
//   it was set, for the cool-off before a settlement may go to it), its schedule (`manual`,
//   `daily` at a time in Africa/Lagos, `instant`) and the reserve it keeps. No row: manual, no
//   account.
// - `settlements`: each settlement, one payout each (the payout carries its status), with what it
//   covered: the business's transactions recorded after those of its last settlement that did not
//   fail, up to the last recorded when it was made (by their ordinals, dense per business), and
//   the first's and last's recording times. A daily settlement names its day (Africa/Lagos): one per business per
//   day, so two processes running the schedule never settle the same day twice.
// - `payouts.settlement_id`: the payout of a settlement (its events are `settlement.*`).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("settlement_terms")
    .addColumn("business_id", "text", (c) => c.primaryKey().references("businesses.id"))
    .addColumn("bank_code", "text")
    .addColumn("bank_name", "text")
    .addColumn("account_number", "text")
    .addColumn("account_name", "text")
    .addColumn("account_set_at", "text")
    .addColumn("schedule", "text", (c) =>
      c.notNull().defaultTo("manual").check(sql`schedule in ('manual', 'daily', 'instant')`),
    )
    .addColumn("daily_at", "text")
    .addColumn("reserve_kobo", "bigint", (c) => c.notNull().defaultTo(0).check(sql`reserve_kobo >= 0`))
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("settlements")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("payout_id", "text", (c) => c.notNull().unique().references("payouts.id"))
    .addColumn("trigger", "text", (c) => c.notNull().check(sql`trigger in ('manual', 'daily', 'instant')`))
    .addColumn("period", "text")
    .addColumn("covered_after", "bigint", (c) => c.notNull().check(sql`covered_after >= 0`))
    .addColumn("covered_through", "bigint", (c) => c.notNull())
    .addColumn("transaction_count", "bigint", (c) => c.notNull())
    .addColumn("first_recorded_at", "text")
    .addColumn("last_recorded_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("settlements_business_period_key", ["business_id", "period"])
    .addCheckConstraint(
      "settlements_covered",
      sql`covered_through >= covered_after and transaction_count = covered_through - covered_after`,
    )
    .execute();
  await db.schema
    .createIndex("settlements_business_time_idx")
    .on("settlements")
    .columns(["business_id", "created_at", "id"])
    .execute();

  await db.schema.alterTable("payouts").addColumn("settlement_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("payouts").dropColumn("settlement_id").execute();
  await db.schema.dropTable("settlements").execute();
  await db.schema.dropTable("settlement_terms").execute();
}
