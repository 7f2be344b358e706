/**
 * The upstream that actually issues virtual account numbers, shaped like a real bank's
 * virtual-account API. The embedded Virtual Bank implements it; an HTTP adapter to a real bank
 * can implement it too without any change to the domain.
 *
 * Implementations throw `providerRejected(message)` when the upstream refuses the request (its
 * message reaches the client) and `providerUnavailable()` when it cannot be reached.
 */
export interface AccountProvider {
  /** The bank's name, as account holders see it. */
  readonly bankName: string;
  /**
   * Opens an account. Idempotent on `accountReference`, as real banks are: the same reference
   * again answers the account already opened for it, never a second one.
   */
  createVirtualAccount(request: VirtualAccountRequest): Promise<IssuedVirtualAccount>;
  /** The account opened for this reference, if any (after a timeout: did the create happen?). */
  findByReference(accountReference: string): Promise<IssuedVirtualAccount | undefined>;
  /** Stops (disable) or restarts (enable) an account taking payments; unknown numbers are refused. */
  setAccountEnabled(accountNumber: string, enabled: boolean): Promise<void>;
}

/**
 * The bank's name for the kind of identity number: `personal` carries a BVN in licenseNumber,
 * `personal_nin` a NIN. (The service's own name for it is IdentityType, `bvn` or `nin`.)
 */
export type BankIdentityType = "personal" | "personal_nin";

export interface VirtualAccountRequest {
  identityType: BankIdentityType;
  /** The BVN or NIN. */
  licenseNumber: string;
  virtualAccountName: string;
  customerName: string;
  email: string;
  /** Unique per issuance; lets the two sides reconcile. */
  accountReference: string;
}

export interface IssuedVirtualAccount {
  accountNumber: string;
  accountName: string;
  accountReference: string;
}

/**
 * The bank's identity call (issue 46): the name its record of a BVN or NIN holds, which the
 * service compares with the holder's name by its own rule (core/name-match.ts). Throws as the
 * AccountProvider does when the bank refuses or cannot be reached.
 */
export interface IdentityRegistry {
  /** The name on the bank's record of this identity number (undefined: it has no record). */
  identityName(request: IdentityRequest): Promise<string | undefined>;
}

export interface IdentityRequest {
  identityType: BankIdentityType;
  /** The BVN or NIN. */
  licenseNumber: string;
  /** The name the account is (or is to be) held in: a bank may use it to find the record. */
  customerName: string;
}
