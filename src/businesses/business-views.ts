import {
  VERIFICATION_STATUSES,
  type VerificationEvent,
  type VerificationStatus,
} from "../core/business-states.js";
import type { Business } from "../storage/schema.js";

// A business and its verification history as the domain shows them (business-service.ts).

/** A business as the domain shows it. */
export interface BusinessSummary {
  businessId: string;
  name: string;
  verificationStatus: VerificationStatus;
  /** Accounts created so far. */
  accounts: number;
  /** The fee on each payment received: hundredths of a percent, and its cap in kobo (null: none). */
  fee: { basisPoints: number; capKobo: number | null };
  createdAt: string;
  updatedAt: string;
}

/** One recorded change of a business's verification status. */
export interface VerificationChange {
  from: VerificationStatus;
  to: VerificationStatus;
  reason: string | null;
  actor: { type: string; id: string | null };
  at: string;
}

export const toChange = (event: VerificationEvent): VerificationChange => ({
  from: event.fromStatus,
  to: event.toStatus,
  reason: event.reason,
  actor: { type: event.actorType, id: event.actorId },
  at: event.createdAt,
});

export const businessSummary = (row: Business): BusinessSummary => ({
  businessId: row.id,
  name: row.name,
  verificationStatus: row.verification_status,
  accounts: Number(row.account_count),
  fee: {
    basisPoints: Number(row.fee_basis_points),
    capKobo: row.fee_cap_kobo === null ? null : Number(row.fee_cap_kobo),
  },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function isVerificationStatus(value: string): value is VerificationStatus {
  return (VERIFICATION_STATUSES as readonly string[]).includes(value);
}
