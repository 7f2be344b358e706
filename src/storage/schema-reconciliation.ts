// Reconciliation's tables (migration 0025, issue 27).

/** How far a reconciliation job has read the bank's statement, and which process holds it now. */
export interface ReconciliationStateTable {
  name: string;
  /** The statement was read for credits to recover up to this instant (ISO 8601). */
  covered_to: string | null;
  /** The last day (Africa/Lagos, YYYY-MM-DD) the job reported. */
  reported_through: string | null;
  claimed_by: string | null;
  claimed_until: string | null;
  updated_at: string;
}

/** One run of a day's reconciliation: append-only. */
export interface ReconciliationReportsTable {
  /** `rcn_` and 32 hex digits. */
  id: string;
  /** The day, Africa/Lagos, YYYY-MM-DD. */
  date: string;
  trigger: "scheduled" | "manual";
  window_from: string;
  window_to: string;
  /** The count of the report's discrepancies (every category but matched and recovered). */
  discrepancies: number;
  /** JSON: counts and sums in kobo per category. */
  summary: string;
  /** JSON: each category's items. */
  items: string;
  created_at: string;
}

/** What one run found in the bank's statement, while it lasts. */
export interface ReconciliationSeenTable {
  run_id: string;
  kind: "credit" | "debit";
  ref: string;
}

/** A credit found at the bank that no notification brought. */
export interface ReconciliationRecoveriesTable {
  session_id: string;
  transaction_id: string;
  via: "job" | "requery" | "report";
  recovered_at: string;
}
