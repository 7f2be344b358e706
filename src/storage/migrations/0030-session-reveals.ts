import type { Kysely } from "kysely";

// Issue 28, item 5: every form ends in a redirect, so a refresh never posts again. What a form
// makes to be shown once (a new API secret, a webhook's signing secret, recovery codes) waits
// for the page it redirects to in the session's row, sealed by the master key, and is taken by
// the first page that shows it.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("dashboard_sessions").addColumn("reveal_sealed", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("dashboard_sessions").dropColumn("reveal_sealed").execute();
}
