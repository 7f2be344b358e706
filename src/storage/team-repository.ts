import type { MemberRole } from "../core/people.js";
import type { Executor } from "./executor.js";

// A business's team: its members' roles, the invitations to join it, and the sign-ups waiting
// for their email to be confirmed (issue 28, items 2 and 3).

// A sign-up as the domain reads it, in its names (the columns aliased): never its token's hash.
const SIGN_UP = ["email", "business_name as businessName", "password_hash as passwordHash"] as const;

// An invitation as the domain reads it, in its names (the columns aliased): never its token's hash.
const INVITATION = [
  "id",
  "business_id as businessId",
  "email",
  "member_role as memberRole",
  "invited_by as invitedBy",
  "created_at as createdAt",
  "expires_at as expiresAt",
] as const;

type SignUp = NonNullable<Awaited<ReturnType<typeof liveSignUp>>>;

/** A new sign-up given in the domain's names (businesses/sign-ups.ts's NewSignUp fits it). */
export async function insertSignUp(
  db: Executor,
  signUp: SignUp & { tokenHash: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto("sign_ups")
    .values({
      token_hash: signUp.tokenHash,
      email: signUp.email,
      business_name: signUp.businessName,
      password_hash: signUp.passwordHash,
      created_at: signUp.createdAt,
      expires_at: signUp.expiresAt,
      used_at: null,
    })
    .execute();
}

/** The sign-up a link confirms, while it is still good at `now`. */
export function liveSignUp(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom("sign_ups")
    .select(SIGN_UP)
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

/** Uses a sign-up's link up, when it was still good at `now`: the sign-up, or nothing. */
export function takeSignUp(db: Executor, tokenHash: string, now: string) {
  return db
    .updateTable("sign_ups")
    .set({ used_at: now })
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning(SIGN_UP)
    .executeTakeFirst();
}

type Invitation = NonNullable<Awaited<ReturnType<typeof liveInvitation>>>;

/**
 * A new invitation given in the domain's names (businesses/invitations.ts's NewInvitation fits
 * it); earlier ones to the same email at the business, still open, are revoked.
 */
export async function insertInvitation(
  db: Executor,
  invitation: Invitation & { tokenHash: string },
): Promise<void> {
  await db
    .updateTable("invitations")
    .set({ revoked_at: invitation.createdAt })
    .where("business_id", "=", invitation.businessId)
    .where("email", "=", invitation.email)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .execute();
  await db
    .insertInto("invitations")
    .values({
      id: invitation.id,
      token_hash: invitation.tokenHash,
      business_id: invitation.businessId,
      email: invitation.email,
      member_role: invitation.memberRole,
      invited_by: invitation.invitedBy,
      created_at: invitation.createdAt,
      expires_at: invitation.expiresAt,
      accepted_at: null,
      revoked_at: null,
    })
    .execute();
}

/** The invitation a link opens, while it is still good at `now`. */
export function liveInvitation(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom("invitations")
    .select(INVITATION)
    .where("token_hash", "=", tokenHash)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

/** Accepts an invitation, when it was still good at `now`: the invitation, or nothing. */
export function takeInvitation(db: Executor, tokenHash: string, now: string) {
  return db
    .updateTable("invitations")
    .set({ accepted_at: now })
    .where("token_hash", "=", tokenHash)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .returning(INVITATION)
    .executeTakeFirst();
}

/** A business's invitations still open at `now`, newest first. */
export function openInvitations(db: Executor, businessId: string, now: string) {
  return db
    .selectFrom("invitations")
    .select(INVITATION)
    .where("business_id", "=", businessId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("created_at", "desc")
    .execute();
}

/** Revokes a business's open invitation: whether there was one. */
export async function revokeInvitation(
  db: Executor,
  businessId: string,
  id: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("invitations")
    .set({ revoked_at: now })
    .where("id", "=", id)
    .where("business_id", "=", businessId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Moves a member from role `from` (any but the owner, when "not owner") to `to`: whether they
 * were in it. Conditional, so a change that raced another (a hand-over, say) changes nothing.
 */
export async function moveMemberRole(
  db: Executor,
  userId: string,
  from: MemberRole | "not owner",
  to: MemberRole,
): Promise<boolean> {
  const result = await db
    .updateTable("users")
    .set({ member_role: to })
    .where("id", "=", userId)
    .where("member_role", from === "not owner" ? "<>" : "=", from === "not owner" ? "owner" : from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whether the business has an owner. */
export async function hasOwner(db: Executor, businessId: string): Promise<boolean> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("business_id", "=", businessId)
    .where("member_role", "=", "owner")
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Removes a member: their sessions, links and codes, then their row; the audit entries they made
 * keep their email.
 */
export async function deleteMember(db: Executor, userId: string, email: string): Promise<boolean> {
  await db.updateTable("audit_log").set({ actor_email: email }).where("actor_id", "=", userId).execute();
  await db.deleteFrom("dashboard_sessions").where("user_id", "=", userId).execute();
  await db.deleteFrom("password_resets").where("user_id", "=", userId).execute();
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  // Never the owner, whatever was read before (a hand-over may have just made them one).
  const deleted = await db
    .deleteFrom("users")
    .where("id", "=", userId)
    .where("member_role", "<>", "owner")
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** Forgets the rows of `table` (sign-ups or invitations) whose link stopped working before `before`. */
export async function deleteExpiredLinks(
  db: Executor,
  table: "sign_ups" | "invitations",
  before: string,
): Promise<number> {
  const deleted = await db.deleteFrom(table).where("expires_at", "<", before).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** Keeps what a session's next page shows once (sealed), in place of anything kept before. */
export async function keepSessionReveal(db: Executor, sessionId: string, sealed: string): Promise<void> {
  await db
    .updateTable("dashboard_sessions")
    .set({ reveal_sealed: sealed })
    .where("id", "=", sessionId)
    .execute();
}

/**
 * Takes what the session kept to show once, when it starts with `prefix` (its kind): one page
 * gets it, however many ask at once; something of another kind stays.
 */
export async function takeSessionReveal(
  db: Executor,
  sessionId: string,
  prefix: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("dashboard_sessions")
    .select("reveal_sealed")
    .where("id", "=", sessionId)
    .executeTakeFirst();
  if (!row?.reveal_sealed?.startsWith(prefix)) return undefined;
  const taken = await db
    .updateTable("dashboard_sessions")
    .set({ reveal_sealed: null })
    .where("id", "=", sessionId)
    .where("reveal_sealed", "=", row.reveal_sealed)
    .executeTakeFirst();
  return taken.numUpdatedRows > 0n ? row.reveal_sealed : undefined;
}

/** Whether the business requires two-factor sign-in of every member (issue 43). */
export async function isTwoFactorRequired(db: Executor, businessId: string): Promise<boolean> {
  const row = await db
    .selectFrom("businesses")
    .select("require_two_factor")
    .where("id", "=", businessId)
    .executeTakeFirst();
  return Number(row?.require_two_factor ?? 0) === 1;
}

export async function setTwoFactorRequired(
  db: Executor,
  businessId: string,
  required: boolean,
  at: string,
): Promise<void> {
  await db
    .updateTable("businesses")
    .set({ require_two_factor: required ? 1 : 0, updated_at: at })
    .where("id", "=", businessId)
    .execute();
}
