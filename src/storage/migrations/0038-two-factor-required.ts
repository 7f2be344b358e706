import type { Kysely } from "kysely";

// Issue 43, item 3: a business's owner can require two-factor sign-in of every member; a member
// without it is led to set it up at their next page and can do nothing else until they have.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("businesses")
    .addColumn("require_two_factor", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("businesses").dropColumn("require_two_factor").execute();
}
