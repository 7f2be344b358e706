import type { Actor } from "../core/actor.js";
import type { MemberRole, OperatorRole, UserRecord, UserRole } from "../core/people.js";
import { emailSchema } from "../core/validation.js";
import { validationFailed } from "../errors.js";

/** Someone who signs in, as the dashboard and the console see them (never the hash or the secret). */
export interface User {
  id: string;
  role: UserRole;
  businessId: string | null;
  email: string;
  totpEnabled: boolean;
  /** A business user's role at their business (null for an operator). */
  memberRole: MemberRole | null;
  /** An operator's role in the console (null for a business user). */
  operatorRole: OperatorRole | null;
  /** Disabled by an operator admin: no sign-in. */
  disabled: boolean;
}

/** One line of the audit log as its reader sees it: when, who (a user's email, or the kind of actor), what. */
export interface ActivityEntry {
  at: string;
  action: string;
  actorType: string;
  actorEmail: string | null;
  detail: Record<string, unknown>;
}

/** Where a sign-in came from, as its audit entry keeps it: the client's address and its browser in words. */
export interface SignInOrigin {
  address?: string;
  device?: string;
}

/** A user as the fronts see it. */
export const toUser = (row: UserRecord): User => ({
  id: row.id,
  role: row.role,
  businessId: row.businessId,
  email: row.email,
  totpEnabled: row.totpEnabledAt !== null,
  memberRole: row.memberRole,
  operatorRole: row.operatorRole,
  disabled: row.disabledAt !== null,
});

/** The actor a signed-in user acts as. */
export const actorOf = (user: Pick<User, "id" | "role">): Actor =>
  user.role === "operator" ? { type: "operator", id: user.id } : { type: "user", id: user.id };

/** An email as typed into a form: the one email rule, or a 400 naming what is wrong. */
export function parseEmail(text: unknown): string {
  const parsed = emailSchema.safeParse(text);
  if (!parsed.success) throw validationFailed(parsed.error.issues[0]?.message ?? "email is not valid");
  return parsed.data;
}
