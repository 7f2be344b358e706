import type { AccountKind, IdentityType } from "./account-kinds.js";
import type { AllowedPayer, AmountPolicy, OnMismatch } from "./api-types.js";
import type { EventToWrite } from "./event-to-write.js";
import type { UnitOfWork } from "./unit-of-work.js";

// Generate's writes (issue 12's hot path): here, in the core, because storage implements them
// once per dialect (sqlite/ and postgres/account-writes.ts) and gathers them with its stores, and
// accounts/account-service.ts decides what they write. The records are in the domain's names;
// storage maps them to its columns.

/** Who an account holds the customer to be: the identity's type and its keyed fingerprint. */
export interface AccountIdentity {
  identityType: IdentityType;
  /** HMAC-SHA256 of the identity number under a service key: comparable, not reversible. */
  identityFingerprint: string;
  identityLast4: string;
  /** The other kind of identity, when the account holds both (issue 46); null: none. */
  secondIdentityFingerprint: string | null;
  secondIdentityLast4: string | null;
  /** Its KYC tier (accounts/tiers.ts): what it may receive. */
  tier: number;
}

/** A new account, less what storage assigns (its ordinal). */
export interface AccountToCreate extends AccountIdentity {
  id: string;
  businessId: string;
  kind: AccountKind;
  accountNumber: string;
  accountName: string;
  customerName: string;
  /** Trimmed and lower-cased: the key of the one-permanent-account-per-email rule. */
  email: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** A temporary account's life, expiry and expected amount (none for a permanent one). */
  durationMinutes?: number;
  expiresAt?: string;
  /** Kobo; null: it takes any transfers. */
  expectedAmount?: number | null;
  amountPolicy?: AmountPolicy | null;
  /** Who may pay in (null: anyone) and what a mismatch becomes (issue 46, item 6). */
  allowedPayers: AllowedPayer[] | null;
  onMismatch: OnMismatch;
}

/** A number issued to an account, less what the account gives it (its id, business and version). */
export interface NumberToRecord {
  accountNumber: string;
  /** The reference sent to the bank when the number was issued. */
  reference: string;
  issuedAt: string;
  issuedByType: string | null;
  issuedById: string | null;
}

/** The permanent account a re-issue finds, as the domain decides from it. */
export interface ExistingAccount {
  accountNumber: string;
  email: string;
  /** The version of its current number (1 when created, +1 at each re-issue). */
  version: number;
}

/** What a re-issue changes on the account: its new number, the name on it and the identity behind it. */
export interface ReissuedFields extends AccountIdentity {
  accountNumber: string;
  accountName: string;
  customerName: string;
  updatedAt: string;
  version: number;
  /** Null: a re-issue reactivates the account. */
  deactivatedAt: string | null;
}

/** The domain's re-issue of an existing permanent account: the new fields, its event, the answer. */
export interface Reissue<T> {
  fields: ReissuedFields;
  event: EventToWrite;
  result: T;
}

/** Generate's writes, one implementation per dialect. Each is the unit of work's one write. */
export interface AccountWrites {
  /**
   * Creates a temporary account (the business's next ordinal) with its first number, and
   * resolves to `answer`. Permanent accounts go through createOrReissue.
   */
  createTemporary<T>(
    account: AccountToCreate & { kind: "temporary" },
    number: NumberToRecord,
    answer: T,
    unit: UnitOfWork | undefined,
  ): Promise<T>;
  /**
   * Creates the permanent account (as createTemporary does) and resolves to `created`, or, when
   * the business has one for the email, re-issues it as `reissue` decides from the existing one
   * (read under its lock): the fields the domain chose (the new number, its version, whether
   * the account is active), the new number recorded and the old one retired, and its event.
   */
  createOrReissue<T>(
    account: AccountToCreate,
    number: NumberToRecord,
    created: T,
    reissue: (existing: ExistingAccount) => Reissue<T>,
    unit: UnitOfWork | undefined,
  ): Promise<T>;
}
