import type { AllowedPayer } from "./api-types.js";

// An account's allowed payers (issue 46, item 6) as its row keeps them: JSON, null for anyone.

/** The account row's column as the list it holds (null: anyone may pay). */
export function allowedPayersOf(column: string | null | undefined): AllowedPayer[] | null {
  if (column === null || column === undefined) return null;
  return JSON.parse(column) as AllowedPayer[];
}

/** The list as the account row's column. */
export const allowedPayersColumn = (allowed: readonly AllowedPayer[] | null | undefined): string | null =>
  allowed === null || allowed === undefined ? null : JSON.stringify(allowed);
