// The people who sign in to the dashboard and the console, and what is kept of them: users,
// their sessions, sign-in attempts, what a business submitted for verification, the audit log.
// Timestamps as in schema.ts: ISO-8601 UTC text. The roles are the domain's (core/people.ts).

import type { MemberRole, OperatorRole, UserRole } from "../core/people.js";

/** Attempts at one sign-in subject in its current window (counted before anything is checked). */
export interface SignInAttemptsTable {
  /** SHA-256 (hex) of the subject: an email from untrusted clients, a device, a user's code. */
  subject: string;
  attempts: number;
  /** When the count starts again; while attempts are at the limit, sign-in is paused until then. */
  window_ends_at: string;
}

/** Someone who signs in to the dashboard (a business's user) or the console (an operator). */
export interface UsersTable {
  id: string;
  role: UserRole;
  /** The business a business user belongs to (null for an operator). */
  business_id: string | null;
  /** Trimmed and lower-cased. */
  email: string;
  /** argon2id, PHC string. */
  password_hash: string;
  /** The TOTP secret sealed by the master key (null: none); enabled from totp_enabled_at. */
  totp_secret_ciphertext: string | null;
  totp_enabled_at: string | null;
  /** The last TOTP time step accepted: each code is good once. */
  totp_last_step: number | null;
  password_changed_at: string;
  created_at: string;
  /** A business user's role (one owner a business); null for an operator. */
  member_role: MemberRole | null;
  /** An operator's role; null for a business user. */
  operator_role: OperatorRole | null;
  /** When an admin disabled the operator (null: enabled): no session, no sign-in. */
  disabled_at: string | null;
}

/** A server-side session; the cookie holds a token whose SHA-256 is the id. */
export interface DashboardSessionsTable {
  id: string;
  user_id: string;
  /** 1 when every factor was passed; 0 between the password and the TOTP code. */
  verified: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** What a form made to be shown once on the next page (sealed; taken when shown). */
  reveal_sealed: string | null;
}

/** What a business submitted for verification (the latest submission). */
export interface BusinessProfilesTable {
  business_id: string;
  registered_name: string;
  rc_number: string;
  address: string;
  contact_name: string;
  contact_email: string;
  contact_phone: string;
  submitted_at: string;
}

/** Sign-ins, sign-outs, password and key changes: who, what, when. */
export interface AuditLogTable {
  id: string;
  business_id: string | null;
  actor_type: string;
  actor_id: string | null;
  action: string;
  /** JSON. */
  detail: string | null;
  created_at: string;
  /** The actor's email, kept when a member is removed (their row goes). */
  actor_email: string | null;
}

/** A password reset link: its token's SHA-256 only; good once, until it expires. */
export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  /** When it was used, or voided by a newer link (null: still good until it expires). */
  used_at: string | null;
}

/** A recovery code: its HMAC only; good once, instead of a TOTP code at sign-in. */
export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

/** A sign-up waiting for its email to be confirmed: no business exists before it is. */
export interface SignUpsTable {
  token_hash: string;
  email: string;
  business_name: string;
  /** argon2id of the password chosen at sign-up. */
  password_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** An invitation to join a business's team: a single-use link for seven days. */
export interface InvitationsTable {
  id: string;
  token_hash: string;
  business_id: string;
  email: string;
  member_role: MemberRole;
  /** The user who invited (null: the CLI's invite-owner). */
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}
