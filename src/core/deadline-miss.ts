// A deadline missed (issue 46, item 3), in the domain's names: what the deadlines' watch
// (reconciliation/deadline-watch.ts) records and storage writes (storage/deadline-repository.ts).

/** An item found past its CBN deadline: a credit applied late, or a payout's money late back. */
export interface DeadlineMissRecord {
  kind: "credit" | "return";
  /** The transaction's id (a credit) or the payout's (a return). */
  itemId: string;
  businessId: string;
  /** Kobo: the credit's amount, or the payout's. */
  amount: number;
  /** The bank's session id (a credit's). */
  sessionId: string | null;
  /** The payout's own reference (null for a credit). */
  reference: string | null;
  /** A credit's `successful`; a payout's status when last seen. */
  status: string;
  /** The bank's paid time, or the payout's hold: when the clock started. */
  startedAt: string;
  /** When the credit was applied, or the money came back (null: not back yet). */
  endedAt: string | null;
  foundAt: string;
}
