import type { VerificationStatus } from "./business-states.js";

/**
 * A business as the domain makes and reads it, in its names: businesses/ builds a new one and
 * shows it, storage writes it and reads it back (storage/business-repository.ts maps the
 * columns). Declared here because storage's insert takes it.
 */
export interface BusinessRecord {
  id: string;
  name: string;
  verificationStatus: VerificationStatus;
  /** Accounts created so far; also the ordinal of the newest account. */
  accountCount: number;
  /** The fee on each transfer, in hundredths of a percent (150 = 1.5 %); 0 = no fee. */
  feeBasisPoints: number;
  /** The most a fee may be, in kobo (null: no cap). */
  feeCapKobo: number | null;
  /** The payout fee's tiers as JSON `[{upTo, fee}]` in kobo (null: the default). */
  payoutFeeTiers: string | null;
  /** Whether the API may send payouts (1) or not (0). */
  payoutsEnabled: number;
  /** The most one payout / one day's payouts may be, in kobo (null: the defaults). */
  payoutLimitKobo: number | null;
  payoutDailyLimitKobo: number | null;
  /** The IANA time zone its pages show times in. */
  timeZone: string;
  /** 1: every member signs in with two factors. */
  requireTwoFactor: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * What a business submits to be verified: the businesses room makes and shows it, storage
 * writes and reads it (user-repository.ts maps the columns). Declared here because storage's
 * write and read name it.
 */
export interface BusinessProfile {
  registeredName: string;
  /** The Corporate Affairs Commission registration number: RC (companies) or BN (business names), then digits. */
  rcNumber: string;
  address: string;
  contactName: string;
  contactEmail: string;
  contactPhone: string;
  submittedAt: string;
}
