import type { LedgerAccountKind, LedgerAccountToOpen } from "./kinds.js";
import type { AccountHead, ChainedEntry } from "./posting.js";

/** A business's ledger accounts' heads by kind, as a posting moves them along. */
export type Heads = Map<LedgerAccountKind, AccountHead>;

/** What a posting writes in the ledger: its entries, under its id, and the heads it leaves. */
export interface LedgerPosting {
  /** The posting's id: the entries' transaction id (a collection's transaction, a payout's posting). */
  id: string;
  businessId: string;
  entries: readonly ChainedEntry[];
  /** The heads the entries moved, after them. */
  heads: Iterable<AccountHead>;
}

/**
 * The ledger as a cold-path transaction (`Tx`) writes it: declared here, where its rules are, and
 * implemented once per dialect in storage (sqlite/ and postgres/ledger-writes.ts) with the very
 * statements a transfer's posting runs, so each write of the ledger is spelled once per dialect.
 */
export interface LedgerWrites<Tx> {
  /**
   * The business's heads, taken for the rest of the transaction in id order (the order transfers
   * take them in), after opening those of `accounts` it does not have yet.
   */
  lockedHeads(
    tx: Tx,
    businessId: string,
    accounts: readonly LedgerAccountToOpen[],
    now: string,
  ): Promise<Heads>;
  /** Writes the posting's entries and moves its heads. */
  post(tx: Tx, posting: LedgerPosting): Promise<void>;
}
