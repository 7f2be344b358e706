import { randomUUID } from "node:crypto";
import type { MemberRole } from "../core/people.js";
import { AppError, ErrorCode } from "../errors.js";
import type { Executor } from "../storage/executor.js";
import { findUser, insertAudit, type UserRow } from "../storage/user-repository.js";
import { passwordMatches } from "./passwords.js";

// What the services about people share (user-service.ts, second-factor.ts): the refusals they
// answer with, a user's row required, the current password required, an audit row of a user.

export const invalidCredentials = () =>
  new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The email or password is not right");
export const invalidCode = () => new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "That code is not right");
const wrongPassword = () =>
  new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The current password is not right");

/** The user's row; an unknown id is the same refusal as wrong credentials. */
export async function requireUser(db: Executor, userId: string): Promise<UserRow> {
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
  row: UserRow,
  password: string,
  failure: string,
  at: string,
): Promise<void> {
  if (await passwordMatches(row.password_hash, password)) return;
  await insertAudit(db, userAudit(row, failure, {}, at));
  throw wrongPassword();
}

/** An audit row of what a user (or, undefined, someone unknown) did. */
export function userAudit(
  row: UserRow | undefined,
  action: string,
  detail: Record<string, unknown>,
  at: string,
) {
  return {
    id: randomUUID(),
    business_id: row?.business_id ?? null,
    actor_type: row ? (row.role === "operator" ? "operator" : "user") : "anonymous",
    actor_id: row?.id ?? null,
    action,
    detail: JSON.stringify(detail),
    created_at: at,
    actor_email: row?.email ?? null,
  };
}

/** A new user's row: an operator (no business, no member role) or a member of a business. */
export function newUserRow(
  who: { businessId: string; memberRole: MemberRole } | "operator",
  email: string,
  passwordHash: string,
  at: string,
): UserRow {
  return {
    id: randomUUID(),
    role: who === "operator" ? "operator" : "business",
    business_id: who === "operator" ? null : who.businessId,
    member_role: who === "operator" ? null : who.memberRole,
    // An operator made here (the CLI's, the first) is an admin; the console invites with a role.
    operator_role: who === "operator" ? "admin" : null,
    disabled_at: null,
    email,
    password_hash: passwordHash,
    totp_secret_ciphertext: null,
    totp_enabled_at: null,
    totp_last_step: null,
    password_changed_at: at,
    created_at: at,
  };
}
