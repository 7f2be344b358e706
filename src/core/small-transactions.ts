// Small write transactions that need not wait for each other (the outcomes of webhook delivery
// attempts): here, in the core, because storage implements it once per dialect and gathers it
// with its stores, and the delivery worker writes through it. `Tx` is storage's transaction.

/**
 * Runs small write transactions, batched where the dialect gains by it (SQLite's one writer) and
 * each alone where it does not (PostgreSQL's pool): storage's transaction-batches.ts.
 */
export interface SmallTransactions<Tx> {
  /** Runs `work` in a write transaction; `order` is the key of the rows it locks. */
  run(work: (trx: Tx) => Promise<void>, order?: string): Promise<void>;
}
