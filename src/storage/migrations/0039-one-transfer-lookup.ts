import { type Kysely, PostgresAdapter, sql } from "kysely";
import { up as createSingleLookup } from "./0017-transfer-lookup.js";

// Issue 45: a transfer alone is a batch of one (storage/postgres/transfer-writes.ts), looked up by
// vas_transfer_lookups (migration 0036) like a batch, so vas_transfer_lookup (0017), a second
// spelling of the same locks and reads, has no caller: dropped, so that the schema holds one.

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_transfer_lookup(text, text)`.execute(db);
}

export const down = createSingleLookup;
