import type { Kysely } from "kysely";

// Issue 46, items 1 and 2: a transfer out carries the NIP session id its bank gave it (every bank
// traces a transfer by it), and the codes its status queries were answered with; a payout still
// unresolved after the fifth query needs an operator's attention (payouts/payout-tracker.ts). The
// embedded Virtual Bank records the session id it made for each transfer out.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("payouts").addColumn("session_id", "text").execute();
  await db.schema.alterTable("payouts").addColumn("nip_codes", "text").execute();
  await db.schema.alterTable("payouts").addColumn("attention_at", "text").execute();
  // Found by session id in the dashboard and the console: a business's, or any (the operator's).
  await db.schema.createIndex("payouts_session_idx").on("payouts").column("session_id").execute();
  // The console's list of payouts that need attention: few, so a partial index.
  await db.schema
    .createIndex("payouts_attention_idx")
    .on("payouts")
    .column("attention_at")
    .where("attention_at", "is not", null)
    .execute();
  await db.schema.alterTable("virtual_bank_payouts").addColumn("session_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("virtual_bank_payouts").dropColumn("session_id").execute();
  await db.schema.dropIndex("payouts_attention_idx").execute();
  await db.schema.dropIndex("payouts_session_idx").execute();
  await db.schema.alterTable("payouts").dropColumn("attention_at").execute();
  await db.schema.alterTable("payouts").dropColumn("nip_codes").execute();
  await db.schema.alterTable("payouts").dropColumn("session_id").execute();
}
