import { type Kysely, sql } from "kysely";

// Issue 28, items 2 and 3: a business is a team. Each business user has a member role (one owner
// a business, which a partial unique index holds); a sign-up waits for its email to be confirmed
// before any business exists; an invitation is a single-use link for seven days. Links are kept
// only as their token's SHA-256. A removed member's audit rows keep the email they were made by.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("member_role", "text", (c) =>
      c.check(sql`member_role in ('owner', 'admin', 'developer', 'finance', 'viewer')`),
    )
    .execute();
  // Until now a business had the one user who signed it up: its owner. Should one ever have had
  // more, the first is the owner and the rest admins.
  await sql`
    update users set member_role = case
      when id = (select u.id from users u where u.business_id = users.business_id
                 order by u.created_at, u.id limit 1) then 'owner'
      else 'admin' end
    where role = 'business'`.execute(db);
  await db.schema
    .createIndex("users_one_owner_idx")
    .on("users")
    .column("business_id")
    .unique()
    .where(sql.ref("member_role"), "=", "owner")
    .execute();
  await db.schema.alterTable("audit_log").addColumn("actor_email", "text").execute();

  await db.schema
    .createTable("sign_ups")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("business_name", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("sign_ups_expires_idx").on("sign_ups").column("expires_at").execute();

  await db.schema
    .createTable("invitations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("business_id", "text", (c) => c.notNull().references("businesses.id"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("member_role", "text", (c) =>
      c.notNull().check(sql`member_role in ('owner', 'admin', 'developer', 'finance', 'viewer')`),
    )
    .addColumn("invited_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("accepted_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema
    .createIndex("invitations_business_idx")
    .on("invitations")
    .columns(["business_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("invitations").execute();
  await db.schema.dropTable("sign_ups").execute();
  await db.schema.alterTable("audit_log").dropColumn("actor_email").execute();
  await db.schema.dropIndex("users_one_owner_idx").execute();
  await db.schema.alterTable("users").dropColumn("member_role").execute();
}
