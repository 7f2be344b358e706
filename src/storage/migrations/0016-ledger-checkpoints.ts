import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 24, item 11: the ledger's tail cannot vanish quietly.
//
// The hash chain proves every entry up to an account's head, but not that the head is where it
// was: someone with write access who deletes the newest entries (triggers disabled) and moves
// the heads back leaves a chain that verifies. A checkpoint records, per ledger account, the
// entry count and head hash at a moment, under a MAC the database does not hold the key to;
// `vas ledger verify` then finds each checkpointed entry still in the chain (docs/ledger.md).
// Checkpoints are append-only like the ledger. On PostgreSQL TRUNCATE bypasses row triggers,
// so the ledger's tables refuse it with statement-level triggers (SQLite has no TRUNCATE: its
// DELETE without WHERE fires the row triggers).

/** The tables that hold the ledger; none may be truncated. */
const LEDGER_TABLES = ["ledger_accounts", "transactions", "ledger_entries", "ledger_checkpoints"];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("ledger_checkpoints")
    .addColumn("ledger_account_id", "text", (c) => c.notNull().references("ledger_accounts.id"))
    // The entry's sequence: one claim per position, so concurrent runs record it once.
    .addColumn("entry_count", "integer", (c) => c.notNull())
    .addColumn("head_hash", "text", (c) => c.notNull())
    .addColumn("business_id", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("mac", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("ledger_checkpoints_pkey", ["ledger_account_id", "entry_count"])
    .execute();

  // A failed probe query would abort PostgreSQL's migration transaction: ask the adapter instead.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // vas_refuse_change() comes from 0008-collections.
    await sql`
      create trigger ledger_checkpoints_append_only before update or delete on ledger_checkpoints
      for each row execute function vas_refuse_change()`.execute(db);
    await sql`
      create function vas_refuse_truncate() returns trigger language plpgsql as $$
      begin
        raise exception '% keeps the ledger''s history: TRUNCATE refused', tg_table_name using errcode = 'VAS01';
      end
      $$`.execute(db);
    for (const table of LEDGER_TABLES) {
      await sql
        .raw(
          `create trigger ${table}_no_truncate before truncate on ${table} ` +
            "for each statement execute function vas_refuse_truncate()",
        )
        .execute(db);
    }
    return;
  }
  for (const operation of ["update", "delete"]) {
    await sql
      .raw(
        `create trigger ledger_checkpoints_no_${operation} before ${operation} on ledger_checkpoints ` +
          `begin select raise(abort, 'ledger_checkpoints is append-only: ${operation.toUpperCase()} refused'); end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of LEDGER_TABLES) {
      await sql.raw(`drop trigger ${table}_no_truncate on ${table}`).execute(db);
    }
    await sql`drop function vas_refuse_truncate()`.execute(db);
  }
  // Its own triggers go with the table.
  await db.schema.dropTable("ledger_checkpoints").execute();
}
