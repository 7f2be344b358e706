import type { LedgerAccountKind } from "../ledger/kinds.js";
import type { TransactionRecord } from "../ledger/ledger-records.js";

// The money: ledger accounts and their hash-chained entries, the transactions they post,
// checkpoints of the chains, and conflicting notifications kept. Timestamps as in schema.ts.

/** One ledger account: its balance and chain head, kept in the transaction of every entry. */
export interface LedgerAccountsTable {
  id: string;
  business_id: string;
  kind: LedgerAccountKind;
  currency: string;
  /** Kobo: the sum of the account's entries (credits positive, debits negative). */
  balance: number;
  /** Entries so far; the sequence of the newest. */
  entry_count: number;
  /** The hash of the newest entry (64 zeros before the first). */
  last_hash: string;
  created_at: string;
}

/** The operator's charges schedule: one row (id 1), the switches 0 or 1 (migration 0043). */
export interface ChargeScheduleTable {
  id: number;
  vat_basis_points: number;
  stamp_duty_kobo: number;
  stamp_duty_threshold_kobo: number;
  stamp_duty_on_payouts: number;
  stamp_duty_on_credits: number;
  updated_at: string;
}

/** An accepted inbound transfer. Append-only (triggers refuse UPDATE and DELETE). */
export type TransactionsTable = TransactionRecord;

/** One leg of a transaction on one ledger account. Append-only, hash-chained per account. */
export interface LedgerEntriesTable {
  ledger_account_id: string;
  /** 1, 2, 3... per ledger account. */
  sequence: number;
  transaction_id: string;
  business_id: string;
  /** Kobo, signed: credits positive, debits negative; a transaction's entries sum to zero. */
  amount: number;
  balance_after: number;
  created_at: string;
  previous_hash: string;
  hash: string;
}

/**
 * One ledger account's head as a checkpoint run found it: the chain must keep an entry at
 * `entry_count` with `head_hash`. Append-only; `mac` is keyed by a key the database only holds
 * sealed (see ledger/checkpoint.ts).
 */
export interface LedgerCheckpointsTable {
  ledger_account_id: string;
  entry_count: number;
  head_hash: string;
  business_id: string;
  run_id: string;
  created_at: string;
  /** HMAC-SHA256, hex, of the other fields. */
  mac: string;
}

/**
 * A bank session id seen again with other content than its first recording: one row per
 * distinct content, with how often it came. The first recording stands.
 */
export interface TransferConflictsTable {
  id: string;
  session_id: string;
  /** The transaction the session id was first recorded as. */
  transaction_id: string;
  business_id: string;
  /** What the refused notification said. */
  account_number: string;
  amount: number;
  currency: string;
  attempts: number;
  first_seen_at: string;
  last_seen_at: string;
}
