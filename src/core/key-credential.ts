import type { ApiKeyStatus, VerificationStatus } from "./business-states.js";

/**
 * An API key as authentication needs it, with its business: what storage's hot read of a key
 * answers (in the core because storage names it) and auth/credential-reads.ts's port returns.
 */
export interface KeyCredential {
  keyId: string;
  keyStatus: ApiKeyStatus;
  secretCiphertext: string;
  businessId: string;
  businessName: string;
  verificationStatus: VerificationStatus;
  /** The oldest signature version the key accepts. */
  minSignatureVersion: number;
}
