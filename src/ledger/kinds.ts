/**
 * A business's ledger accounts: what came in through the bank for it (settlement, a debit
 * balance: minus everything received), what it may use (available), what is held for payouts the
 * bank has not finished (pending), what its payouts took out of the bank (paid_out), and the
 * service's fees (revenue), and the charges collected for the state on them, owed until remitted
 * (vat_payable, stamp_duty_payable: ledger/charges.ts), and the credits held until the business
 * accepts or returns them, or an operator releases or returns a blocked one (held: issue 46,
 * collections/held-credits.ts). The ledger's arithmetic and the tables both speak these.
 */
export type LedgerAccountKind =
  | "settlement"
  | "available"
  | "pending"
  | "paid_out"
  | "revenue"
  | "vat_payable"
  | "stamp_duty_payable"
  | "held";

/**
 * The kinds every business has one ledger account of from its first transfer, in the order they
 * are locked (by id). `pending` and `paid_out` are opened by the business's first payout
 * (ledger/holds.ts).
 */
export const LEDGER_ACCOUNT_KINDS: readonly LedgerAccountKind[] = [
  "available",
  "held",
  "revenue",
  "settlement",
  "stamp_duty_payable",
  "vat_payable",
];

/** Every kind a business's ledger account can be, opened or not. */
export const EVERY_LEDGER_ACCOUNT_KIND: readonly LedgerAccountKind[] = [
  "available",
  "held",
  "paid_out",
  "pending",
  "revenue",
  "settlement",
  "stamp_duty_payable",
  "vat_payable",
];

/** Every kind, opened at once: what a payout opens when the business has none of them yet. */
export const everyLedgerAccountOf = (businessId: string): LedgerAccountToOpen[] =>
  ledgerAccountsOf(businessId, EVERY_LEDGER_ACCOUNT_KIND);

/** The kinds whose balance never goes below zero (the database refuses it too: migrations 0019, 0045). */
export const NON_NEGATIVE_KINDS: readonly LedgerAccountKind[] = ["available", "pending", "held"];

/** A business's ledger account id: deterministic, so it is found without a lookup. */
export const ledgerAccountId = (businessId: string, kind: LedgerAccountKind) => `${businessId}:${kind}`;

/** The currency of every ledger account: the service collects naira. */
export const LEDGER_CURRENCY = "NGN";

/** A ledger account to open: its id, kind and currency. */
export interface LedgerAccountToOpen {
  id: string;
  kind: LedgerAccountKind;
  currency: string;
}

/**
 * A business's ledger accounts of `kinds`, in naira: by default those opened with its first
 * transfer (LEDGER_ACCOUNT_KINDS), one of each.
 */
export const ledgerAccountsOf = (
  businessId: string,
  kinds: readonly LedgerAccountKind[] = LEDGER_ACCOUNT_KINDS,
): LedgerAccountToOpen[] =>
  kinds.map((kind) => ({
    id: ledgerAccountId(businessId, kind),
    kind,
    currency: LEDGER_CURRENCY,
  }));
