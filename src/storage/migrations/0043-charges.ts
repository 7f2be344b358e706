import { type Kysely, PostgresAdapter, sql } from "kysely";
import { transferLookups } from "../postgres/transfer-lookups.js";
import { POSTINGS_FUNCTION } from "../postgres/transfer-posting.js";

// Issue 46, item 4: the charges the operator collects for the state (ledger/charges.ts).
// - `charge_schedule`: the operator's schedule, one row (`vas charges set`), as a new installation
//   starts: nothing charged (VAT 0, the stamp duty off), the stamp duty's figures the law's.
// - `transactions` and `payouts` keep each posting's VAT and stamp duty beside its fee, so that an
//   answer, a webhook and a CSV show them without reading the ledger (0 for what came before).
// - every business with a ledger gets its two liability accounts, `vat_payable` and
//   `stamp_duty_payable` (a transfer opens them with the rest from now on), so that the count of a
//   business's heads still says whether it lacks one (ledger-writes.ts).
// - PostgreSQL: the transfers' look-up reads the schedule with the business's fee, in the same call
//   (no round trip of its own: the charges are computed in the posting), and the posting's function
//   is made again from the statement, which writes the two new columns (0040).

const CHARGE_COLUMNS = `,
  c.vat_basis_points as charge_vat_basis_points, c.stamp_duty_kobo as charge_stamp_duty_kobo,
  c.stamp_duty_threshold_kobo as charge_stamp_duty_threshold_kobo,
  c.stamp_duty_on_payouts as charge_stamp_duty_on_payouts,
  c.stamp_duty_on_credits as charge_stamp_duty_on_credits`;
const CHARGE_JOIN = "\n  cross join charge_schedule c";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("charge_schedule")
    .addColumn("id", "integer", (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn("vat_basis_points", "integer", (c) =>
      c.notNull().check(sql`vat_basis_points between 0 and 10000`),
    )
    .addColumn("stamp_duty_kobo", "bigint", (c) => c.notNull().check(sql`stamp_duty_kobo >= 0`))
    .addColumn("stamp_duty_threshold_kobo", "bigint", (c) =>
      c.notNull().check(sql`stamp_duty_threshold_kobo >= 1`),
    )
    .addColumn("stamp_duty_on_payouts", "integer", (c) => c.notNull())
    .addColumn("stamp_duty_on_credits", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await sql`insert into charge_schedule values (1, 0, 5000, 1000000, 0, 0, ${new Date(0).toISOString()})`.execute(
    db,
  );
  for (const table of ["transactions", "payouts"]) {
    await db.schema
      .alterTable(table)
      .addColumn("vat", "bigint", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn("stamp_duty", "bigint", (c) => c.notNull().defaultTo(0))
      .execute();
  }
  // `where true`: SQLite reads an ON after a bare SELECT's FROM as a join's.
  for (const kind of ["stamp_duty_payable", "vat_payable"]) {
    await sql`insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
      select distinct l.business_id || ${`:${kind}`}, l.business_id, ${kind}, 'NGN', 0, 0, ${"0".repeat(64)},
        ${new Date().toISOString()}
      from ledger_accounts l
      where true
      on conflict do nothing`.execute(db);
  }
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql.raw(transferLookups(CHARGE_COLUMNS, CHARGE_JOIN)).execute(db);
  await sql`drop function vas_post_transfers`.execute(db);
  await sql.raw(POSTINGS_FUNCTION.create).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql.raw(transferLookups("", "")).execute(db);
  }
  for (const kind of ["stamp_duty_payable", "vat_payable"]) {
    await sql`delete from ledger_accounts where kind = ${kind} and entry_count = 0`.execute(db);
  }
  for (const table of ["transactions", "payouts"]) {
    await db.schema.alterTable(table).dropColumn("stamp_duty").execute();
    await db.schema.alterTable(table).dropColumn("vat").execute();
  }
  await db.schema.dropTable("charge_schedule").execute();
}
