import type { BusinessRecord } from "../core/business-record.js";
import {
  VERIFICATION_STATUSES,
  type VerificationEvent,
  type VerificationStatus,
} from "../core/business-states.js";

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

export const businessSummary = (business: BusinessRecord): BusinessSummary => ({
  businessId: business.id,
  name: business.name,
  verificationStatus: business.verificationStatus,
  accounts: Number(business.accountCount),
  fee: {
    basisPoints: Number(business.feeBasisPoints),
    capKobo: business.feeCapKobo === null ? null : Number(business.feeCapKobo),
  },
  createdAt: business.createdAt,
  updatedAt: business.updatedAt,
});

export function isVerificationStatus(value: string): value is VerificationStatus {
  return (VERIFICATION_STATUSES as readonly string[]).includes(value);
}
