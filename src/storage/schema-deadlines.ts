// The deadlines' tables (migration 0042, issue 46 item 3). Timestamps as in schema.ts; money in kobo.

/** An item found past its deadline: a late credit, or a payout's money not back in time. */
export interface DeadlineMissesTable {
  kind: "credit" | "return";
  /** The transaction's id (a credit) or the payout's (a return). */
  item_id: string;
  business_id: string;
  amount: number;
  /** The bank's session id: a credit's; a payout's once the bank's answers carry one. */
  session_id: string | null;
  /** A payout's own reference (null for a credit). */
  reference: string | null;
  /** A credit: `successful`; a payout: where it stood when last seen (pending, failed, reversed). */
  status: string;
  /** The bank's paid time (a credit) or the hold's time (a payout): when the clock started. */
  started_at: string;
  /** When the service applied the credit, or the money came back (null: not yet). */
  ended_at: string | null;
  found_at: string;
}

/** How far the watch has read: a business's credits by ordinal, or the returns by time. */
export interface DeadlineScansTable {
  scope: string;
  through_ordinal: number;
  through_at: string | null;
}
