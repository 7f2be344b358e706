import type { PermanentAccount } from "../core/api-types.js";

// What the account operations answer: the API's shapes (core/answers.ts, which the SDK shares),
// and what generating a permanent account did.

export type { AccountSummary, PermanentAccount, TemporaryAccount } from "../core/api-types.js";

/** What generating a permanent account did: created it, or re-issued the existing one. */
export interface GeneratedPermanent {
  created: boolean;
  account: PermanentAccount;
}
