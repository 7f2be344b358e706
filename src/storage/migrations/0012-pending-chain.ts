import { type Kysely, sql } from "kysely";

// Issue 18 (throughput): one account's deliveries to one endpoint form a chain, of which only the
// head is scheduled (see delivery-repository.ts). Every query about a chain asks for its pending
// deliveries, so the index covers those alone: a probe costs the chain's backlog, never the
// pair's whole delivery history.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_order_idx").execute();
  await db.schema
    .createIndex("webhook_deliveries_pending_chain_idx")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "account_number", "sequence"])
    .where(sql.ref("state"), "=", "pending")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_pending_chain_idx").execute();
  await db.schema
    .createIndex("webhook_deliveries_order_idx")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "account_number", "sequence"])
    .execute();
}
