import { type Kysely, sql } from "kysely";

// Issue 46, item 3: the CBN's deadlines watched (reconciliation/deadline-watch.ts).
//
// - `deadline_misses`: each item found past its deadline, once: a credit applied later than
//   DEADLINE_CREDIT_MINUTES after the bank's paid time (`kind` 'credit', the transaction), or a
//   payout, refund or settlement whose money was not back in the business's available balance
//   DEADLINE_RETURN_HOURS after its hold (`kind` 'return', the payout): `ended_at` is when it came
//   back (null: not yet, at risk). Its key makes the alert once per item, whichever process finds it.
// - `deadline_scans`: how far the watch has read. A business's credits are read by their ordinal
//   (`through_ordinal`: they are numbered in recording order under the business's ledger rows, so
//   a reader that sees one sees every one before it), with no index or write on the transfer path;
//   the payouts' returns by their postings' time (`through_at`, the scope `returns`).
// - A partial index on the postings that give money back (void and reversal), so the returns'
//   scan reads only them.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("deadline_misses")
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('credit', 'return')`))
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("business_id", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("session_id", "text")
    .addColumn("reference", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("ended_at", "text")
    .addColumn("found_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("deadline_misses_pkey", ["kind", "item_id"])
    .execute();
  await db.schema
    .createIndex("deadline_misses_found_idx")
    .on("deadline_misses")
    .columns(["kind", "found_at", "item_id"])
    .execute();
  await db.schema
    .createTable("deadline_scans")
    .addColumn("scope", "text", (c) => c.primaryKey())
    .addColumn("through_ordinal", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("through_at", "text")
    .execute();
  await db.schema
    .createIndex("payout_postings_returned_idx")
    .on("payout_postings")
    .column("created_at")
    .where(sql.ref("phase"), "in", sql`('void', 'reversal')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("payout_postings_returned_idx").execute();
  await db.schema.dropTable("deadline_scans").execute();
  await db.schema.dropTable("deadline_misses").execute();
}
