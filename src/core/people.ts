// Who signs in, and in what role: the domain's value sets (businesses/roles.ts says what each
// member role may do, businesses/operators.ts what each operator role may) and a user's record,
// declared here because storage keeps them in its columns and its writes take the record.

/** A user of the dashboard (a business's member) or of the console (an operator). */
export type UserRole = "business" | "operator";

/** What a business user may do at their business (businesses/roles.ts has the permissions). */
export type MemberRole = "owner" | "admin" | "developer" | "finance" | "viewer";

/** What an operator may do: decide verifications (`reviewer`), or all of the console (`admin`). */
export const OPERATOR_ROLES = ["reviewer", "admin"] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/**
 * Someone who signs in, as the domain makes and reads them, in its names: businesses/ builds a
 * new one and decides on it (never showing the hash or the secret: businesses/users.ts's User),
 * storage writes it and reads it back (storage/user-repository.ts maps the columns).
 */
export interface UserRecord {
  id: string;
  role: UserRole;
  /** The business a business user belongs to (null for an operator). */
  businessId: string | null;
  /** Trimmed and lower-cased. */
  email: string;
  /** argon2id, PHC string. */
  passwordHash: string;
  /** The TOTP secret sealed by the master key (null: none); enabled from totpEnabledAt. */
  totpSecretCiphertext: string | null;
  totpEnabledAt: string | null;
  /** The last TOTP time step accepted: each code is good once. */
  totpLastStep: number | null;
  passwordChangedAt: string;
  createdAt: string;
  /** A business user's role (one owner a business); null for an operator. */
  memberRole: MemberRole | null;
  /** An operator's role; null for a business user. */
  operatorRole: OperatorRole | null;
  /** When an admin disabled the operator (null: enabled). */
  disabledAt: string | null;
}

/** What may change of a user once made (never its id, role, business, email or birth). */
export type UserChanges = Partial<Omit<UserRecord, "id" | "role" | "businessId" | "email" | "createdAt">>;
