import type { Kysely } from "kysely";

// Issue 26, item 8: a key may be limited to a list of client addresses for payouts and refunds
// (`vas key set-payout-ips`): JSON, an array of addresses and CIDR ranges; null, any address.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("payout_ips", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("payout_ips").execute();
}
