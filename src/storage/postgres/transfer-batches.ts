import { CommitOutcomeUnknownError, isConnectionLost, storageFailure } from "../errors.js";
import { KeyedBatches } from "../keyed-batches.js";
import type { TransferOutcome } from "../transfer-writes.js";
import { emptyPlan, type Plan, type Settled, type TransferItem } from "./transfer-plan.js";

/**
 * One transaction posting `items`: a business's batch, or a transfer alone (`business`
 * undefined). It tells `learn` whose each number is, and fills `plan` as it decides.
 */
export type PostBatch = (
  business: string | undefined,
  items: readonly TransferItem[],
  learn: (accountNumber: string, businessId: string) => void,
  plan: Plan,
) => Promise<void>;

// A batch's key: its business, or, while the business is not known, the account number (so a new
// number's first transfers go together too, in the order they came).
const BUSINESS = "business:";
const NUMBER = "number:";
const businessOf = (key: string) => (key.startsWith(BUSINESS) ? key.slice(BUSINESS.length) : undefined);

/** The most transfers one transaction posts. */
const MAX_BATCH = 32;
/** The most account numbers whose business is remembered (the oldest forgotten first). */
const MAX_OWNERS = 20_000;

/**
 * PostgreSQL: one business's transfers in flight posted in one transaction (issue 29), as
 * SQLite's group commit posts them: its ledger rows are locked once and handed over once per
 * batch, and the batch commits once, instead of each transfer taking its turn on them through a
 * transaction of its own. A transfer is batched by its number's business, known once a transfer
 * into that number was looked up (numbers never move between businesses; the look-up checks it
 * anyway); until then by the number. A transfer alone is a batch of one, posted the same way
 * (issue 45: one look-up, one posting statement).
 *
 * What each transfer is answered is what it would have been alone, in the batch's order: the
 * look-up's locks and reads are those of a transfer alone, for all of them at once, and each is
 * decided on what the ones before it posted. A refusal (the acceptance rules) refuses only its own
 * transfer; a statement the database refuses rolls the batch back, and each is then ingested
 * alone, so only its own fails. A connection lost while COMMIT was on its way leaves every written
 * transfer's outcome unknown, and says so, as it would alone.
 */
export class TransferBatches {
  private readonly owners = new Map<string, string>();
  private readonly batches: KeyedBatches<TransferItem, Settled>;

  constructor(
    private readonly post: PostBatch,
    /** At most this many batches hold a pooled connection at once. */
    maxRunning: number,
  ) {
    this.batches = new KeyedBatches((key, items) => this.run(businessOf(key), items), {
      max: MAX_BATCH,
      // A session id's second recording waits for the first's batch, and then finds it.
      fits: (batch, item) => !batch.some((other) => other.transfer.sessionId === item.transfer.sessionId),
      maxRunning,
    });
  }

  ingest(item: TransferItem): Promise<TransferOutcome<unknown>> {
    const { accountNumber } = item.transfer;
    const business = this.owners.get(accountNumber);
    const key = business === undefined ? `${NUMBER}${accountNumber}` : `${BUSINESS}${business}`;
    return this.batches.submit(key, item).then((done) => {
      if ("error" in done) throw done.error;
      return done.outcome;
    });
  }

  private readonly learn = (accountNumber: string, businessId: string) => {
    if (this.owners.get(accountNumber) === businessId) return;
    this.owners.delete(accountNumber);
    if (this.owners.size >= MAX_OWNERS) this.owners.delete(this.owners.keys().next().value as string);
    this.owners.set(accountNumber, businessId);
  };

  /** Posts the batch; those it did not settle go alone, in order, after its commit or rollback. */
  private async run(business: string | undefined, items: TransferItem[]): Promise<Settled[]> {
    const plan = emptyPlan(items.length);
    const again = await this.batch(business, items, plan);
    for (const i of again) {
      const [one] = await this.run(undefined, [items[i] as TransferItem]);
      plan.settled[i] = one;
    }
    return plan.settled as Settled[];
  }

  /** Settles what the batch decided, and answers the indexes left to ingest alone. */
  private async batch(business: string | undefined, items: TransferItem[], plan: Plan): Promise<number[]> {
    const alone = items.length === 1;
    try {
      await this.post(business, items, this.learn, plan);
    } catch (error) {
      const unsettled = items.flatMap((_, i) => (plan.settled[i] === undefined ? [i] : []));
      const deferred = new Set(plan.deferred);
      // Alone, its failure is its own; in a batch, written in the message that carried COMMIT, it
      // may have committed (the deferred were not sent, and go alone, on another connection); the
      // database refusing writes refuses them alone too.
      if (
        alone ||
        error instanceof CommitOutcomeUnknownError ||
        isConnectionLost(error) ||
        storageFailure(error) !== undefined
      ) {
        for (const i of unsettled) if (!deferred.has(i)) plan.settled[i] = { error };
        return plan.deferred;
      }
      // A statement refused for one transfer is found by writing each alone.
      return unsettled;
    }
    for (const w of plan.written) {
      if (w.posting) items[w.index]?.unit?.taken();
      plan.settled[w.index] = { outcome: w.outcome };
    }
    return plan.deferred;
  }
}
