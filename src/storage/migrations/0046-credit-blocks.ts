import { type Kysely, sql } from "kysely";

// Issue 46, item 7: erroneous credits. When a payer's bank disputes a credit (sent in error: the
// CBN has it reversed within a business day where the funds are there), an operator blocks an
// amount of it: moved from the business's `available` to its `held` ledger account, so it can be
// neither paid out nor settled, then either released (back to available) or returned to the payer
// (a refund whose hold takes it from held). A block's row moves under the business's ledger locks:
// `blocked` -> `released`, or `blocked` -> `returned` (`refund_id`; back to `blocked` when the bank
// does not make that refund). An operator blocks a credit once at a time (the domain checks it
// under the ledger locks); the database does not refuse a second standing block, for a return the
// payer's bank sends back after it succeeded stands its block again whatever stands meanwhile.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("credit_blocks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("transaction_id", "text", (c) => c.notNull().references("transactions.id"))
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("amount", "bigint", (c) => c.notNull().check(sql`amount > 0`))
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("release_posting_id", "text", (c) => c.unique())
    .addColumn("refund_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by_type", "text", (c) => c.notNull())
    .addColumn("created_by_id", "text")
    .addColumn("decided_at", "text")
    .addColumn("decided_by_type", "text")
    .addColumn("decided_by_id", "text")
    .execute();
  await db.schema.createIndex("credit_blocks_credit").on("credit_blocks").column("transaction_id").execute();
  await db.schema
    .createIndex("credit_blocks_business")
    .on("credit_blocks")
    .columns(["business_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("credit_blocks").execute();
}
