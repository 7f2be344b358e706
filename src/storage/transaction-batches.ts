import type { SmallTransactions } from "../core/small-transactions.js";
import type { Storage } from "./database.js";
import { isStorageUnavailable } from "./errors.js";
import type { Executor } from "./executor.js";
import { writeTransaction } from "./transactions.js";

// Core's SmallTransactions, one implementation per dialect, chosen with the stores: on SQLite,
// whose one writer takes transactions one at a time anyway, batched (TransactionBatches); on
// PostgreSQL each a transaction of its own, side by side on the pool, where one batch would take
// them one at a time through one connection, holding every lock of the batch (measured: ten
// receivers' deliveries held up the transfers that queue their events).

/** PostgreSQL's small transactions: each one alone, as writeTransaction runs it. */
export const eachAlone = (storage: Storage): SmallTransactions<Executor> => ({
  run: (work) => writeTransaction(storage, work),
});

interface Pending {
  work: (trx: Executor) => Promise<void>;
  order: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * SQLite's small transactions, run together (issue 29): what is submitted while a batch runs goes in the next one, one
 * BEGIN and one COMMIT for all of it. Each keeps the outcome it would have had alone: when a
 * batch fails for something other than the database being unreachable, its works run again one
 * transaction each, so only the one that failed fails; when the database cannot answer, or the
 * COMMIT's outcome is unknown, every work of the batch fails with that error, as each would have
 * alone.
 */
export class TransactionBatches implements SmallTransactions<Executor> {
  private queue: Pending[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly max = 64,
  ) {}

  /**
   * Runs `work` in the next batch's transaction; settles once that transaction has committed. A
   * batch runs its works in `order` (the rows they lock, by key), so that two processes' batches
   * take their locks in one order and never wait on each other in a circle.
   */
  run(work: (trx: Executor) => Promise<void>, order = ""): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ work, order, resolve, reject });
      this.running ??= new Promise<void>((started) => setImmediate(started)).then(() => this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue
          .splice(0, this.max)
          .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
        await this.write(batch);
      }
    } finally {
      this.running = undefined;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      await writeTransaction(this.storage, async (trx) => {
        for (const pending of batch) await pending.work(trx);
      });
      for (const pending of batch) pending.resolve();
      return;
    } catch (error) {
      // Unavailable includes a COMMIT whose outcome is unknown (storage/errors.ts).
      if (batch.length === 1 || isStorageUnavailable(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
    }
    for (const pending of batch) {
      await writeTransaction(this.storage, pending.work).then(pending.resolve, pending.reject);
    }
  }
}
