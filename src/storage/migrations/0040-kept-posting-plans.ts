import { type Kysely, PostgresAdapter, sql } from "kysely";
import { POSTINGS_FUNCTION } from "../postgres/transfer-posting.js";

// Issue 45: since a transfer alone is a batch of one, every transfer on PostgreSQL is posted by the
// batch's statement, some 45 arrays over seven tables, sent unnamed (a transaction pooler allows no
// named statement) and so parsed and planned at every transfer: it cost the server more than the
// single transfer's statement did, and PostgreSQL's transfer10 fell below its figure from before
// (docs/performance.md). As a PL/pgSQL function its plan is kept per server connection, as the
// look-up's are (0036). The function is made from the statement itself
// (storage/postgres/transfer-posting.ts, kept-plans.ts), so that the posting is written once:
// a change to that statement needs a migration that runs POSTINGS_FUNCTION.create again, and
// transfer-posting.test.ts fails until there is one. SQLite has nothing to gain (its statements
// are prepared once).

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql.raw(POSTINGS_FUNCTION.create).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_post_transfers`.execute(db);
}
