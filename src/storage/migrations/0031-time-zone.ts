import { type Kysely, sql } from "kysely";

// Issue 28, item 7: a business's pages show times in its time zone (Africa/Lagos, WAT, unless
// it chose another); the API and exports stay in UTC.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("businesses")
    .addColumn("time_zone", "text", (c) => c.notNull().defaultTo(sql`'Africa/Lagos'`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("businesses").dropColumn("time_zone").execute();
}
