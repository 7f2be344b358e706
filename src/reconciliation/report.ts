import type { PayoutStatus } from "../core/api-types.js";

// A day's reconciliation report (issue 27, docs/ledger.md "Reconciliation"): what the ledger and
// the bank's statement agree on, what was recovered, and each discrepancy with both sides.

/** A count and a sum in kobo. */
export interface Tally {
  count: number;
  amount: number;
}

/** A credit as one side has it. */
export interface CreditSide {
  accountNumber: string;
  /** Kobo. */
  amount: number;
  currency: string;
  paidAt: string;
}

/** A credit the two sides disagree on (or one side lacks), with both sides. */
export interface CreditItem {
  sessionId: string;
  businessId: string | null;
  transactionId: string | null;
  /** The ledger's transaction; null when it has none. */
  ledger: CreditSide | null;
  /** The bank's record (its statement, its query, or the notification kept as a conflict); null when it has none. */
  bank: CreditSide | null;
  /** Why it is here, in an operator's words. */
  note: string;
}

/** A payout whose status the ledger and the bank disagree on. */
export interface PayoutItem {
  payoutId: string;
  businessId: string | null;
  /** Kobo. */
  amount: number;
  /** Null: the ledger has no such payout. */
  ledgerStatus: PayoutStatus | null;
  /** Null: the bank has no such transfer. */
  bankStatus: PayoutStatus | null;
  note: string;
}

/** A category of the report: its tally and (up to MAX_ITEMS of) its items. */
export type Category<I> = Tally & { items: I[] };

export interface ReportCategories {
  /** In both, alike. */
  matched: Tally;
  /** At the bank, not in the ledger: ingested now through the one ingestion path. */
  recovered: Category<CreditItem>;
  /** In the ledger, not in the bank's statement (nor its query). */
  missingAtBank: Category<CreditItem>;
  /** One session id, another amount, account or currency: the statement's, or a kept conflict. */
  mismatched: Category<CreditItem>;
  /** At the bank, not in the ledger, and refused by the acceptance rules: the bank must return it. */
  notCredited: Category<CreditItem>;
  /** Payouts on which the two agree (after applying a final status the bank had and the ledger had not yet heard). */
  payoutsMatched: Tally;
  payoutStatusMismatch: Category<PayoutItem>;
}

export interface ReconciliationReport extends ReportCategories {
  id: string;
  /** The day, Africa/Lagos. */
  date: string;
  trigger: "scheduled" | "manual";
  /** What was compared: [from, to), value times for credits, the bank's acceptance for payouts. */
  window: { from: string; to: string };
  /** Every transaction in the ledger with a value time in the window, and every credit in the bank's statement. */
  ledgerTotal: Tally;
  bankTotal: Tally;
  /** The first few items missing at the bank or mismatched: what the console's banner names. */
  headline: CreditItem[];
  /** The count of items in every category that is a discrepancy (all but matched and recovered). */
  discrepancies: number;
  createdAt: string;
}

/** The categories an operator must act on. */
export const DISCREPANCY_CATEGORIES = [
  "missingAtBank",
  "mismatched",
  "notCredited",
  "payoutStatusMismatch",
] as const;
export type DiscrepancyCategory = (typeof DISCREPANCY_CATEGORIES)[number];

/** The most items a stored category keeps (its count and sum stay exact). */
export const MAX_ITEMS = 1_000;

export const emptyCategories = (): ReportCategories => ({
  matched: { count: 0, amount: 0 },
  recovered: { count: 0, amount: 0, items: [] },
  missingAtBank: { count: 0, amount: 0, items: [] },
  mismatched: { count: 0, amount: 0, items: [] },
  notCredited: { count: 0, amount: 0, items: [] },
  payoutsMatched: { count: 0, amount: 0 },
  payoutStatusMismatch: { count: 0, amount: 0, items: [] },
});

/** Counts `amount` into a tally. */
export function tally(into: Tally, amount: number): void {
  into.count++;
  into.amount += amount;
}

/** Counts an item into its category, keeping it while there is room. */
export function record<I>(into: Category<I>, amount: number, item: I): void {
  tally(into, amount);
  if (into.items.length < MAX_ITEMS) into.items.push(item);
}

/** The discrepancies of a report: the count of every category an operator must act on. */
export const discrepancyCount = (categories: ReportCategories) =>
  DISCREPANCY_CATEGORIES.reduce((sum, category) => sum + categories[category].count, 0);

/** A date the report may be made for: YYYY-MM-DD, a real day. */
export function isReportDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === date;
}
