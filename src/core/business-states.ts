// Where a business and its API keys stand: the domain's value sets (businesses/ decides the
// moves between them), declared here because storage keeps them in its columns and the fronts
// list them (a filter, a status to set). Storage imports them from here, never the other way.

/** A business's verification: only a completed one may take money (businesses/verification.ts). */
export const VERIFICATION_STATUSES = ["completed", "in_progress", "rejected", "not_submitted"] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** An API key's status: only an active key authenticates; a revoked one never comes back. */
export const API_KEY_STATUSES = ["active", "inactive", "revoked"] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/**
 * One recorded change of a business's verification status (append-only): businesses/ writes it
 * in the change's transaction and shows it, storage keeps and reads it.
 */
export interface VerificationEvent {
  id: string;
  businessId: string;
  fromStatus: VerificationStatus;
  toStatus: VerificationStatus;
  reason: string | null;
  /** api_key, user, operator or cli */
  actorType: string;
  actorId: string | null;
  createdAt: string;
}
