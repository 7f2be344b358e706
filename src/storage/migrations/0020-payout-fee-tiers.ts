import type { Kysely } from "kysely";

// Issue 26, item 4: a business's payout fee, a flat amount by the payout's size in tiers set by
// the operator; stored as JSON `[{"upTo": 500000, "fee": 1000}, ..., {"upTo": null, "fee": 5000}]`
// (kobo). Null, as every business starts, is the default schedule (ledger/payout-fees.ts).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("businesses").addColumn("payout_fee_tiers", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("businesses").dropColumn("payout_fee_tiers").execute();
}
