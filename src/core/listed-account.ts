import type { AccountKind } from "./account-kinds.js";

/**
 * An account as a list shows it (the API's page, the dashboard's search), in the domain's names:
 * what storage's hot read of a page answers (in the core because storage names it) and
 * accounts/account-service.ts's `accountSummary` reads.
 */
export interface ListedAccount {
  accountNumber: string;
  accountName: string;
  email: string;
  kind: AccountKind;
  expiresAt: string | null;
  createdAt: string;
  /** When the business deactivated it (null: it is not). */
  deactivatedAt: string | null;
}
