import type { AccountStatus } from "../core/api-types.js";

/** The stored facts status is computed from. */
export interface StatusFacts {
  kind: "permanent" | "temporary";
  expires_at: string | null;
  deactivated_at: string | null;
}

/**
 * `deactivated` when the business deactivated it; `expired` for a temporary account at or
 * after its expiresAt (the instant itself counts as expired); `active` otherwise.
 */
export function accountStatus(account: StatusFacts, now: number): AccountStatus {
  if (account.deactivated_at !== null) return "deactivated";
  if (account.kind === "temporary" && account.expires_at !== null && Date.parse(account.expires_at) <= now) {
    return "expired";
  }
  return "active";
}
