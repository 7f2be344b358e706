import type { AccountStatus } from "./account-status.js";
import type { AmountPolicy } from "./amount-policy.js";

// What the account operations answer: the domain's views of an account, which the routes send
// as they are (the SDK keeps its own copy of these shapes; test/client-package.test.ts keeps
// the two identical).

/** `data` of a generate-permanent response. */
export interface PermanentAccount {
  bankName: string;
  accountNumber: string;
  accountName: string;
  userName: string;
}

/** What generating a permanent account did: created it, or re-issued the existing one. */
export interface GeneratedPermanent {
  created: boolean;
  account: PermanentAccount;
}

/** `data` of a generate-temporary response. */
export interface TemporaryAccount {
  accountNumber: string;
  accountName: string;
  userName: string;
  email: string;
  bankName: string;
  isTemporary: true;
  createdAt: string;
  expiresAt: string;
  expiresInMinutes: number;
  /** Kobo: what the account expects, applied as amountPolicy says (null: any transfers until it expires). */
  expectedAmount: number | null;
  amountPolicy: AmountPolicy | null;
}

/** One item of the list. */
export interface AccountSummary {
  bankName: string;
  accountNumber: string;
  email: string;
  accountName: string;
  createdAt: string;
  isTemporary: boolean;
  expiresAt: string | null;
  /** Computed when read: exact at any instant. */
  status: AccountStatus;
}
