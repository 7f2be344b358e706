import { type Kysely, PostgresAdapter, sql } from "kysely";
import { NEGATIVE_BALANCE_REFUSAL } from "./0019-balances-not-negative.js";

// Issue 46, item 6: who may pay into an account, and what a credit that breaks its rules becomes.
// An account may name the payers it takes (allowed_payers: JSON, null for anyone) and say what a
// credit from anyone else, or of an amount its expected amount's policy does not take, becomes
// (on_mismatch: `decline`, the bank reverses it; or `hold`, credited to the business's `held`
// ledger account until it is accepted or returned). A held balance never goes below zero either:
// migration 0019's refusal is made again with `held` among its kinds (0019 is not edited).
//
// A held credit's transaction is written as it came (`status` `held`; transactions are
// append-only), and the business's decision on it is a row of held_credits, moved under the
// business's ledger locks: `accepted` (its fee and charges, and the posting that took them),
// `returned` (the refund that sends it back: `refund_id`). No row: still held.

const KINDS_BEFORE = ["available", "pending"];
const KINDS_NOW = ["available", "pending", "held"];

const quoted = (kinds: readonly string[]) => kinds.map((kind) => `'${kind}'`).join(", ");

async function refuseNegative(db: Kysely<unknown>, kinds: readonly string[]): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql.raw(`alter table ledger_accounts drop constraint ${NEGATIVE_BALANCE_REFUSAL}`).execute(db);
    await sql
      .raw(
        `alter table ledger_accounts add constraint ${NEGATIVE_BALANCE_REFUSAL} ` +
          `check (kind not in (${quoted(kinds)}) or balance >= 0)`,
      )
      .execute(db);
    return;
  }
  for (const operation of ["insert", "update"]) {
    await sql.raw(`drop trigger ${NEGATIVE_BALANCE_REFUSAL}_${operation}`).execute(db);
    await sql
      .raw(
        `create trigger ${NEGATIVE_BALANCE_REFUSAL}_${operation} before ${operation} on ledger_accounts ` +
          `when new.kind in (${quoted(kinds)}) and new.balance < 0 ` +
          `begin select raise(abort, '${NEGATIVE_BALANCE_REFUSAL}: a balance of this kind cannot go below zero'); end`,
      )
      .execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("allowed_payers", "text").execute();
  await db.schema
    .alterTable("accounts")
    .addColumn("on_mismatch", "text", (c) => c.notNull().defaultTo("decline"))
    .execute();
  await refuseNegative(db, KINDS_NOW);
  await db.schema
    .createTable("held_credits")
    .addColumn("transaction_id", "text", (c) => c.primaryKey().references("transactions.id"))
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("fee", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("vat", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("stamp_duty", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("posting_id", "text", (c) => c.unique())
    .addColumn("refund_id", "text")
    .addColumn("decided_at", "text", (c) => c.notNull())
    .addColumn("decided_by_type", "text")
    .addColumn("decided_by_id", "text")
    .execute();
  await db.schema
    .createIndex("held_credits_business")
    .on("held_credits")
    .columns(["business_id", "state"])
    .execute();
  // A payout's source: a held credit's return takes its money from held (ledger/holds.ts).
  await db.schema
    .alterTable("payouts")
    .addColumn("source", "text", (c) => c.notNull().defaultTo("available"))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("held_credits").execute();
  await db.schema.alterTable("payouts").dropColumn("source").execute();
  await refuseNegative(db, KINDS_BEFORE);
  await db.schema.alterTable("accounts").dropColumn("on_mismatch").execute();
  await db.schema.alterTable("accounts").dropColumn("allowed_payers").execute();
}
