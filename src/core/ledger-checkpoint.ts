/**
 * A ledger account's head as a checkpoint run recorded it, under its MAC: what ledger-audit signs
 * and verifies, and storage records and reads back. Here, in the core, because storage's
 * functions take and return it.
 */
export interface LedgerCheckpoint {
  ledgerAccountId: string;
  /** The account's entry count at the checkpoint: the position of its head in the chain. */
  entryCount: number;
  headHash: string;
  businessId: string;
  runId: string;
  createdAt: string;
  /** HMAC-SHA256, hex, of the other fields. */
  mac: string;
}
