import type { MemberRole } from "../core/people.js";

export type { MemberRole };

// Who at a business may do what (issue 28, item 3). Everyone reads everything of their
// business; what changes things is granted by role. The dashboard enforces it on the server for
// every page and form (dashboard/access.ts names each route's permission); docs/dashboard.md
// prints this table.

/** Every role, most powerful first. */
export const MEMBER_ROLES: readonly MemberRole[] = ["owner", "admin", "developer", "finance", "viewer"];

/** Roles an invitation or a role change may give: the owner is made only by a transfer (or the CLI's invite-owner). */
export const ASSIGNABLE_ROLES: readonly MemberRole[] = ["admin", "developer", "finance", "viewer"];

/** What a role may be granted. */
export type Permission =
  /** Every page of the business, and a member's own sign-in and security. */
  | "read"
  /** API keys: issue, roll, revoke. */
  | "keys"
  /** Webhook endpoints and redelivery. */
  | "webhooks"
  /** Accounts: issue, re-issue, deactivate and reactivate. */
  | "accounts"
  /** Payments in: find a payment at the bank, who may pay into an account, the sandbox's simulated transfer. */
  | "collections"
  /** Payouts, refunds, the settlement account, schedule and settling now. */
  | "money"
  /** The business's details for verification. */
  | "business"
  /** Invite members, change their roles, remove them. */
  | "members"
  /** Hand the business to another member. */
  | "ownership";

const GRANTS: Record<Permission, readonly MemberRole[]> = {
  read: MEMBER_ROLES,
  keys: ["owner", "admin", "developer"],
  webhooks: ["owner", "admin", "developer"],
  accounts: ["owner", "admin", "developer"],
  collections: ["owner", "admin", "developer", "finance"],
  money: ["owner", "finance"],
  business: ["owner", "admin"],
  members: ["owner", "admin"],
  ownership: ["owner"],
};

/** Every permission, in the order the docs list them. */
export const PERMISSIONS = Object.keys(GRANTS) as Permission[];

/** Whether a member with `role` may do what `permission` covers. */
export function may(role: MemberRole | null | undefined, permission: Permission): boolean {
  return role !== null && role !== undefined && GRANTS[permission].includes(role);
}

/**
 * Whether a member with `by` may give `role` to someone, or take it away (an invitation, a role
 * change, a removal): a role that moves money is the owner's alone to grant or remove, so no
 * admin can make themselves (or a second address) a finance member (issue 43, item 4).
 */
export function mayAssign(by: MemberRole | null | undefined, role: MemberRole): boolean {
  if (!may(by, "members") || role === "owner") return false;
  return by === "owner" || !may(role, "money");
}

/** What a role is called on a page. */
export const ROLE_LABELS: Record<MemberRole, string> = {
  owner: "Owner",
  admin: "Admin",
  developer: "Developer",
  finance: "Finance",
  viewer: "Viewer",
};

/** Whether `text` names a role. */
export const isMemberRole = (text: unknown): text is MemberRole =>
  typeof text === "string" && (MEMBER_ROLES as readonly string[]).includes(text);
