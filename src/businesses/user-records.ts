import { randomUUID } from "node:crypto";
import type { MemberRole, UserRecord } from "../core/people.js";
import { AppError, ErrorCode } from "../errors.js";
import type { Executor } from "../storage/executor.js";
import { findUser, insertAudit } from "../storage/user-repository.js";
import { passwordMatches } from "./passwords.js";

// What the services about people share (user-service.ts, second-factor.ts): the refusals they
// answer with, a user required, the current password required, an audit row of a user.

export const invalidCredentials = () =>
  new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The email or password is not right");
export const invalidCode = () => new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "That code is not right");
const wrongPassword = () =>
  new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The current password is not right");

/** The user; an unknown id is the same refusal as wrong credentials. */
export async function requireUser(db: Executor, userId: string): Promise<UserRecord> {
  const row = await findUser(db, userId);
  if (!row) throw invalidCredentials();
  return row;
}

/**
 * The current password, asked for before a sensitive change; a wrong one is audited, so that
 * someone guessing from a session left open shows in the activity list.
 */
export async function requirePassword(
  db: Executor,
  row: UserRecord,
  password: string,
  failure: string,
  at: string,
): Promise<void> {
  if (await passwordMatches(row.passwordHash, password)) return;
  await insertAudit(db, userAudit(row, failure, {}, at));
  throw wrongPassword();
}

/**
 * An audit entry of what a user (or, undefined, someone unknown) did, in the domain's names
 * (storage's insertAudit maps the columns); the actor's email is kept should their row go.
 */
export function userAudit(
  row: UserRecord | undefined,
  action: string,
  detail: Record<string, unknown>,
  at: string,
) {
  return {
    id: randomUUID(),
    businessId: row?.businessId ?? null,
    actorType: row ? (row.role === "operator" ? "operator" : "user") : "anonymous",
    actorId: row?.id ?? null,
    action,
    detail: JSON.stringify(detail),
    createdAt: at,
    actorEmail: row?.email ?? null,
  };
}

/** A new user: an operator (no business, no member role) or a member of a business. */
export function newUserRecord(
  who: { businessId: string; memberRole: MemberRole } | "operator",
  email: string,
  passwordHash: string,
  at: string,
): UserRecord {
  return {
    id: randomUUID(),
    role: who === "operator" ? "operator" : "business",
    businessId: who === "operator" ? null : who.businessId,
    memberRole: who === "operator" ? null : who.memberRole,
    // An operator made here (the CLI's, the first) is an admin; the console invites with a role.
    operatorRole: who === "operator" ? "admin" : null,
    disabledAt: null,
    email,
    passwordHash,
    totpSecretCiphertext: null,
    totpEnabledAt: null,
    totpLastStep: null,
    passwordChangedAt: at,
    createdAt: at,
  };
}
