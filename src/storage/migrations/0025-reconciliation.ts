import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 27: reconciliation with the bank.
//
// - `reconciliation_state`: one row per job (`bank-statement`): how far the bank's statement has
//   been read for credits to recover (`covered_to`), the last day reported (`reported_through`,
//   Africa/Lagos), and the claim of the process reading it now (`claimed_by` until
//   `claimed_until`): two processes never read one window at once, and a process that died
//   leaves its claim to expire.
// - `reconciliation_reports`: every run of a day's reconciliation, kept beside the earlier ones;
//   append-only (the database refuses an UPDATE or a DELETE). Its summary (counts and sums in
//   kobo per category) and its items (each discrepancy, the ledger's side and the bank's) are JSON.
// - `reconciliation_seen`: what one run found in the bank's statement, while the run lasts (the
//   ledger's side is then read for what the bank did not have, in SQL, not in memory).
// - `reconciliation_recoveries`: each credit found at the bank that no notification brought, and
//   how (the job, a requery, a report): a day's report counts it as recovered, not as matched.
// - Indexes for a day across every business: transactions by value time, payouts by when they
//   were made.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("reconciliation_state")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("covered_to", "text")
    .addColumn("reported_through", "text")
    .addColumn("claimed_by", "text")
    .addColumn("claimed_until", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("reconciliation_reports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("date", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull().check(sql`trigger in ('scheduled', 'manual')`))
    .addColumn("window_from", "text", (c) => c.notNull())
    .addColumn("window_to", "text", (c) => c.notNull())
    .addColumn("discrepancies", "integer", (c) => c.notNull().check(sql`discrepancies >= 0`))
    .addColumn("summary", "text", (c) => c.notNull())
    .addColumn("items", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("reconciliation_reports_date_idx")
    .on("reconciliation_reports")
    .columns(["date", "created_at"])
    .execute();
  await db.schema
    .createIndex("reconciliation_reports_time_idx")
    .on("reconciliation_reports")
    .columns(["created_at", "id"])
    .execute();

  await db.schema
    .createTable("reconciliation_seen")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('credit', 'debit')`))
    .addColumn("ref", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("reconciliation_seen_pkey", ["run_id", "kind", "ref"])
    .execute();

  await db.schema
    .createIndex("transactions_value_time_idx")
    .on("transactions")
    .columns(["value_at", "session_id"])
    .execute();
  await db.schema.createIndex("payouts_time_idx").on("payouts").columns(["created_at", "id"]).execute();

  await db.schema
    .createTable("reconciliation_recoveries")
    .addColumn("session_id", "text", (c) => c.primaryKey())
    .addColumn("transaction_id", "text", (c) => c.notNull().references("transactions.id"))
    .addColumn("via", "text", (c) => c.notNull().check(sql`via in ('job', 'requery', 'report')`))
    .addColumn("recovered_at", "text", (c) => c.notNull())
    .execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // vas_refuse_change() comes from 0008-collections.
    await sql`create trigger reconciliation_reports_append_only before update or delete on reconciliation_reports
      for each row execute function vas_refuse_change()`.execute(db);
    return;
  }
  for (const operation of ["update", "delete"]) {
    await sql
      .raw(
        `create trigger reconciliation_reports_no_${operation} before ${operation} on reconciliation_reports ` +
          `begin select raise(abort, 'reconciliation_reports is append-only: ${operation.toUpperCase()} refused'); end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("reconciliation_recoveries").execute();
  await db.schema.dropIndex("payouts_time_idx").execute();
  await db.schema.dropIndex("transactions_value_time_idx").execute();
  await db.schema.dropTable("reconciliation_seen").execute();
  await db.schema.dropTable("reconciliation_reports").execute();
  await db.schema.dropTable("reconciliation_state").execute();
}
