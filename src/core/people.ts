// Who signs in, and in what role: the domain's value sets (businesses/roles.ts says what each
// member role may do, businesses/operators.ts what each operator role may), declared here
// because storage keeps them in its columns.

/** A user of the dashboard (a business's member) or of the console (an operator). */
export type UserRole = "business" | "operator";

/** What a business user may do at their business (businesses/roles.ts has the permissions). */
export type MemberRole = "owner" | "admin" | "developer" | "finance" | "viewer";

/** What an operator may do: decide verifications (`reviewer`), or all of the console (`admin`). */
export const OPERATOR_ROLES = ["reviewer", "admin"] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
