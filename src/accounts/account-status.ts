import type { AccountStatus } from "../core/api-types.js";

/** The facts status is computed from, in the domain's names. */
export interface StatusFacts {
  kind: "permanent" | "temporary";
  expiresAt: string | null;
  deactivatedAt: string | null;
}

/**
 * `deactivated` when the business deactivated it; `expired` for a temporary account at or
 * after its expiresAt (the instant itself counts as expired); `active` otherwise.
 */
export function statusOf(account: StatusFacts, now: number): AccountStatus {
  if (account.deactivatedAt !== null) return "deactivated";
  if (account.kind === "temporary" && account.expiresAt !== null && Date.parse(account.expiresAt) <= now) {
    return "expired";
  }
  return "active";
}

/** The same status from the ledger's CreditedAccount, in its columns' names (collections' acceptance: ledger/ledger-records.ts says why). */
export const accountStatus = (
  row: { kind: StatusFacts["kind"]; expires_at: string | null; deactivated_at: string | null },
  now: number,
): AccountStatus =>
  statusOf({ kind: row.kind, expiresAt: row.expires_at, deactivatedAt: row.deactivated_at }, now);
