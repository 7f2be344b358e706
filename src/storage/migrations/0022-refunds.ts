import { type Kysely, sql } from "kysely";

// Issue 26, item 5: refunds. A refund pays the payer of an inbound transaction back, so a
// transaction keeps the payer's bank code when the bank's notification gives it (null for the
// transactions recorded before, and for a bank that does not say). A refund is a payout whose
// `refund_of` is the transaction: the index finds a transaction's refunds, to sum them.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("transactions").addColumn("payer_bank_code", "text").execute();
  await db.schema
    .createIndex("payouts_refund_of_idx")
    .on("payouts")
    .column("refund_of")
    .where(sql.ref("refund_of"), "is not", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("payouts_refund_of_idx").execute();
  await db.schema.alterTable("transactions").dropColumn("payer_bank_code").execute();
}
