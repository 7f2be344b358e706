import { randomUUID } from "node:crypto";
import type { Actor } from "../core/actor.js";
import type { BusinessProfile } from "../core/business-record.js";
import type { UserChanges, UserRecord, UserRole } from "../core/people.js";
import type { Executor } from "./executor.js";

// A user as the domain reads it, in its names (core/people.ts's UserRecord; the columns aliased).
const USER = [
  "id",
  "role",
  "business_id as businessId",
  "email",
  "password_hash as passwordHash",
  "totp_secret_ciphertext as totpSecretCiphertext",
  "totp_enabled_at as totpEnabledAt",
  "totp_last_step as totpLastStep",
  "password_changed_at as passwordChangedAt",
  "created_at as createdAt",
  "member_role as memberRole",
  "operator_role as operatorRole",
  "disabled_at as disabledAt",
] as const;

/** A user's changeable fields as columns; a field left undefined is not written. */
const changedColumns = (changes: UserChanges) => ({
  password_hash: changes.passwordHash,
  totp_secret_ciphertext: changes.totpSecretCiphertext,
  totp_enabled_at: changes.totpEnabledAt,
  totp_last_step: changes.totpLastStep,
  password_changed_at: changes.passwordChangedAt,
  member_role: changes.memberRole,
  operator_role: changes.operatorRole,
  disabled_at: changes.disabledAt,
});

export async function insertUser(db: Executor, user: UserRecord): Promise<void> {
  await db
    .insertInto("users")
    .values({
      id: user.id,
      role: user.role,
      business_id: user.businessId,
      email: user.email,
      password_hash: user.passwordHash,
      totp_secret_ciphertext: user.totpSecretCiphertext,
      totp_enabled_at: user.totpEnabledAt,
      totp_last_step: user.totpLastStep,
      password_changed_at: user.passwordChangedAt,
      created_at: user.createdAt,
      member_role: user.memberRole,
      operator_role: user.operatorRole,
      disabled_at: user.disabledAt,
    })
    .execute();
}

export function findUserByEmail(
  db: Executor,
  role: UserRole,
  email: string,
): Promise<UserRecord | undefined> {
  return db
    .selectFrom("users")
    .select(USER)
    .where("role", "=", role)
    .where("email", "=", email)
    .executeTakeFirst();
}

export function findUser(db: Executor, id: string): Promise<UserRecord | undefined> {
  return db.selectFrom("users").select(USER).where("id", "=", id).executeTakeFirst();
}

export async function updateUser(db: Executor, id: string, changes: UserChanges): Promise<void> {
  await db.updateTable("users").set(changedColumns(changes)).where("id", "=", id).execute();
}

/**
 * Marks a TOTP step used, if no later or equal step was: one conditional write, so of many
 * concurrent uses of one code exactly one gets true.
 */
export async function useTotpStep(db: Executor, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable("users")
    .set({ totp_last_step: step })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Revokes every live session of the user but `keep` (a password change ends the others). */
export async function revokeUserSessions(
  db: Executor,
  userId: string,
  now: string,
  keep?: string,
): Promise<void> {
  let query = db
    .updateTable("dashboard_sessions")
    .set({ revoked_at: now })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null);
  if (keep) query = query.where("id", "<>", keep);
  await query.execute();
}

/** Sets the business's verification details, its one submission replacing any before. */
export async function upsertBusinessProfile(
  db: Executor,
  businessId: string,
  profile: BusinessProfile,
): Promise<void> {
  const details = {
    registered_name: profile.registeredName,
    rc_number: profile.rcNumber,
    address: profile.address,
    contact_name: profile.contactName,
    contact_email: profile.contactEmail,
    contact_phone: profile.contactPhone,
    submitted_at: profile.submittedAt,
  };
  await db
    .insertInto("business_profiles")
    .values({ business_id: businessId, ...details })
    .onConflict((oc) => oc.column("business_id").doUpdateSet(details))
    .execute();
}

/** The business's verification details, the columns under the record's names. */
export function findBusinessProfile(db: Executor, businessId: string): Promise<BusinessProfile | undefined> {
  return db
    .selectFrom("business_profiles")
    .select([
      "registered_name as registeredName",
      "rc_number as rcNumber",
      "address",
      "contact_name as contactName",
      "contact_email as contactEmail",
      "contact_phone as contactPhone",
      "submitted_at as submittedAt",
    ])
    .where("business_id", "=", businessId)
    .executeTakeFirst();
}

/**
 * Records an audit entry given in the domain's names (what businesses/user-records.ts's
 * userAudit makes), mapped to the columns here.
 */
export async function insertAudit(
  db: Executor,
  entry: {
    id: string;
    businessId: string | null;
    actorType: string;
    actorId: string | null;
    action: string;
    /** JSON. */
    detail: string;
    createdAt: string;
    /** The actor's email, kept should their row go (null: read from their row). */
    actorEmail?: string | null;
  },
): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({
      id: entry.id,
      business_id: entry.businessId,
      actor_type: entry.actorType,
      actor_id: entry.actorId,
      action: entry.action,
      detail: entry.detail,
      created_at: entry.createdAt,
      actor_email: entry.actorEmail ?? null,
    })
    .execute();
}

/** Records what an actor (a user, an operator, the CLI, a key) did to a business, at `at`. */
export async function insertActorAudit(
  db: Executor,
  entry: {
    actor: Actor;
    businessId: string | null;
    action: string;
    detail: Record<string, unknown>;
    at: string;
  },
): Promise<void> {
  await insertAudit(db, {
    id: randomUUID(),
    businessId: entry.businessId,
    actorType: entry.actor.type,
    actorId: entry.actor.id,
    action: entry.action,
    detail: JSON.stringify(entry.detail),
    createdAt: entry.at,
  });
}

/** An audit entry as the Security page lists it, with the email of the user who acted (if one did). */
interface AuditEntry {
  action: string;
  actorType: string;
  actorEmail: string | null;
  detail: string | null;
  createdAt: string;
}

/** The newest audit entries of a business, or of one actor's doing, newest first (an index range each). */
export function recentAudit(
  db: Executor,
  scope: { businessId: string } | { actorId: string },
  limit: number,
): Promise<AuditEntry[]> {
  const query = db
    .selectFrom("audit_log")
    .leftJoin("users", "users.id", "audit_log.actor_id")
    .select([
      "audit_log.action",
      "audit_log.actor_type as actorType",
      // A removed member's row is gone: their email was kept on their entries.
      (eb) => eb.fn.coalesce("users.email", "audit_log.actor_email").as("actorEmail"),
      "audit_log.detail",
      "audit_log.created_at as createdAt",
    ]);
  const scoped =
    "businessId" in scope
      ? query.where("audit_log.business_id", "=", scope.businessId)
      : query.where("audit_log.actor_id", "=", scope.actorId);
  return scoped
    .orderBy("audit_log.created_at", "desc")
    .orderBy("audit_log.id", "desc")
    .limit(limit)
    .execute();
}

/** A business's users, first signed up first. */
export function businessUsers(db: Executor, businessId: string): Promise<UserRecord[]> {
  return db
    .selectFrom("users")
    .select(USER)
    .where("business_id", "=", businessId)
    .where("role", "=", "business")
    .orderBy("created_at")
    .execute();
}

/** The emails of these users (operators and business users alike), by id. */
export async function emailsOfUsers(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("users")
    .select(["id", "email"])
    .where("id", "in", [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.email]));
}

/** The console's operators, first made first. */
export function operatorUsers(db: Executor): Promise<UserRecord[]> {
  return db.selectFrom("users").select(USER).where("role", "=", "operator").orderBy("created_at").execute();
}

/** How many operators are enabled admins. */
export async function enabledAdmins(db: Executor): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("role", "=", "operator")
    .where("operator_role", "=", "admin")
    .where("disabled_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
