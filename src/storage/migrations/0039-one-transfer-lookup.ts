import { type Kysely, PostgresAdapter, sql } from "kysely";
import { transferLookups } from "../postgres/transfer-lookups.js";
import { up as createSingleLookup } from "./0017-transfer-lookup.js";
import { up as createBatchLookup } from "./0036-transfer-lookups.js";

// Issue 45: a transfer alone is a batch of one (storage/postgres/transfer-writes.ts), looked up by
// vas_transfer_lookups like a batch, so vas_transfer_lookup (0017), a second function for the
// same locks and reads, has no caller: dropped, so that the schema holds one.
//
// Most batches are of one transfer (a business's transfers in flight rarely meet), and the
// batch's statements over arrays, each aggregated to JSON, cost PostgreSQL more for one than the
// single look-up did (docs/performance.md): for one session id the function now takes the single
// path inside it, the same locks in the same order, stopping at the first answer (a session id
// recorded before needs nothing more), and answers in the batch's shape.

/** The look-up's text as this migration ran it: indented, as it was inside its template literal. */
const AS_RUN = `\n${transferLookups("", "").replace(/^/gm, "    ")}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_transfer_lookup(text, text)`.execute(db);
  await sql.raw(AS_RUN).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_transfer_lookups(text[], text[])`.execute(db);
  await createBatchLookup(db);
  await createSingleLookup(db);
}
