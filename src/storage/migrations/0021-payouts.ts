import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 26, item 2 and 3: payouts, each held on the ledger then posted or voided once.
//
// - `payouts`: what a business sent, where it stands, and when the service next asks the bank.
//   A business's `reference` is unique within it; the bank is asked with the payout's id, which
//   it never executes twice.
// - `payout_postings`: each ledger posting a payout made: its hold (step 1), the hold's end
//   (step 2: posted or voided) and a reversal (step 3). One row per step, so the database itself
//   refuses a second end of one hold. Append-only, as the ledger is.
// - Ledger entries now belong to a transaction or to a payout posting: the foreign key to
//   `transactions` goes (SQLite rebuilds the table for it, with its indexes and triggers), and
//   `vas ledger verify` finds every entry's posting instead.
// - The businesses' payout switch and limits (item 8), and the embedded Virtual Bank's own record
//   of the transfers out it was asked for, keyed by the reference (executed at most once).

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable("businesses")
    .addColumn("payouts_enabled", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // Kobo; null: the documented default.
  await db.schema.alterTable("businesses").addColumn("payout_limit_kobo", "bigint").execute();
  await db.schema.alterTable("businesses").addColumn("payout_daily_limit_kobo", "bigint").execute();

  await db.schema
    .createTable("payouts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("reference", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull().check(sql`amount > 0`))
    .addColumn("fee", "bigint", (c) => c.notNull().check(sql`fee >= 0`))
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("bank_code", "text", (c) => c.notNull())
    .addColumn("bank_name", "text", (c) => c.notNull())
    .addColumn("account_number", "text", (c) => c.notNull())
    .addColumn("account_name", "text", (c) => c.notNull())
    .addColumn("narration", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status in ('pending', 'successful', 'failed', 'reversed')`),
    )
    .addColumn("failure_reason", "text")
    .addColumn("refund_of", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("submitted_at", "text")
    .addColumn("checks", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_check_at", "text")
    .addUniqueConstraint("payouts_business_reference_key", ["business_id", "reference"])
    .execute();
  await db.schema
    .createIndex("payouts_business_time_idx")
    .on("payouts")
    .columns(["business_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("payouts_due_idx")
    .on("payouts")
    .column("next_check_at")
    .where(sql.ref("status"), "=", sql.lit("pending"))
    .execute();

  await db.schema
    .createTable("payout_postings")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("payout_id", "text", (c) => c.notNull().references("payouts.id"))
    .addColumn("business_id", "text", (c) => c.notNull())
    .addColumn("phase", "text", (c) => c.notNull())
    .addColumn("step", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("payout_postings_payout_step_key", ["payout_id", "step"])
    .addCheckConstraint(
      "payout_postings_phase_step",
      sql`(phase = 'hold' and step = 1) or (phase in ('post', 'void') and step = 2) or (phase = 'reversal' and step = 3)`,
    )
    .execute();

  await db.schema
    .createTable("virtual_bank_payouts")
    .addColumn("reference", "text", (c) => c.primaryKey())
    .addColumn("bank_code", "text", (c) => c.notNull())
    .addColumn("account_number", "text", (c) => c.notNull())
    .addColumn("account_name", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("accepted_at", "text", (c) => c.notNull())
    .addColumn("settles_at", "text", (c) => c.notNull())
    .addColumn("reverses_at", "text")
    // The last status the bank told the service of: its notifications go out once per change.
    .addColumn("notified", "text", (c) => c.notNull().defaultTo("pending"))
    .execute();

  if (postgres) {
    await sql`alter table ledger_entries drop constraint ledger_entries_transaction_id_fkey`.execute(db);
    // vas_refuse_change() and vas_refuse_truncate() come from 0008 and 0016.
    await sql`create trigger payout_postings_append_only before update or delete on payout_postings
      for each row execute function vas_refuse_change()`.execute(db);
    await sql`create trigger payout_postings_no_truncate before truncate on payout_postings
      for each statement execute function vas_refuse_truncate()`.execute(db);
    return;
  }
  for (const operation of ["update", "delete"]) {
    await sql
      .raw(
        `create trigger payout_postings_no_${operation} before ${operation} on payout_postings ` +
          `begin select raise(abort, 'payout_postings is append-only: ${operation.toUpperCase()} refused'); end`,
      )
      .execute(db);
  }
  await rebuildSqliteEntries(db);
}

/**
 * SQLite cannot drop a foreign key: the table is made again without it (SQLite's documented
 * procedure), its rows copied as they are, and its own indexes and triggers made again from
 * their stored definitions. Nothing refers to ledger_entries, so nothing else changes.
 */
async function rebuildSqliteEntries(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ sql: string }>`
    select sql from sqlite_master
    where tbl_name = 'ledger_entries' and type in ('index', 'trigger') and sql is not null`.execute(db);
  await sql`create table ledger_entries_rebuilt (
    ledger_account_id text not null references ledger_accounts (id),
    sequence integer not null,
    transaction_id text not null,
    business_id text not null,
    amount bigint not null,
    balance_after bigint not null,
    created_at text not null,
    previous_hash text not null,
    hash text not null,
    constraint ledger_entries_pkey primary key (ledger_account_id, sequence)
  )`.execute(db);
  await sql`insert into ledger_entries_rebuilt select ledger_account_id, sequence, transaction_id, business_id,
    amount, balance_after, created_at, previous_hash, hash from ledger_entries`.execute(db);
  await sql`drop table ledger_entries`.execute(db);
  await sql`alter table ledger_entries_rebuilt rename to ledger_entries`.execute(db);
  for (const row of rows) await sql.raw(row.sql).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("virtual_bank_payouts").execute();
  await db.schema.dropTable("payout_postings").execute();
  await db.schema.dropTable("payouts").execute();
  for (const column of ["payouts_enabled", "payout_limit_kobo", "payout_daily_limit_kobo"]) {
    await db.schema.alterTable("businesses").dropColumn(column).execute();
  }
}
