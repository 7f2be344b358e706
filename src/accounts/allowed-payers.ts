import type { AllowedPayer } from "../core/api-types.js";
import { namesLookAlike } from "../core/name-match.js";

export { allowedPayersOf } from "../core/allowed-payers-column.js";

// Who may pay into an account (issue 46, item 6): when an account names its payers, a credit is
// taken from one of them only, by the payer's account and bank (as the notification gives them)
// or by name, by the rule of core/name-match.ts (two shared words, the words every company name
// carries left out). Pure: the acceptance rules read it.

/** What a notification says of its payer. */
export interface PayerSeen {
  name: string;
  accountNumber: string;
  bankCode?: string | null | undefined;
}

/** Whether `payer` is one of `allowed` (null: anyone may pay). */
export function payerAllowed(allowed: readonly AllowedPayer[] | null, payer: PayerSeen): boolean {
  if (allowed === null) return true;
  return allowed.some((entry) =>
    "name" in entry
      ? namesLookAlike(payer.name, entry.name)
      : entry.accountNumber === payer.accountNumber &&
        payer.bankCode !== undefined &&
        payer.bankCode !== null &&
        entry.bankCode === payer.bankCode,
  );
}
