import { isStorageUnavailable } from "../errors.js";
import { KeyedBatches } from "../keyed-batches.js";

/** One item's own outcome in a batch: its result, or the error that is its alone. */
type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface WriteBatchesOptions<I, R> {
  /** Writes the whole batch in one autocommitted statement; one result per item, in order. */
  many: (items: readonly I[]) => Promise<R[]>;
  /** Writes one item alone: a batch of one, and the fallback when `many` is refused. */
  one: (item: I) => Promise<R>;
  /** What makes two items the same row: they never share a batch (each must see the other's outcome). */
  identity: (item: I) => string;
  /** The most items one statement writes. */
  max?: number;
  /** Which items may share a statement (default: all of one kind); one key's batches take turns. */
  key?: (item: I) => string;
  /** At most this many batches at once, across keys (default: no limit). */
  maxRunning?: number;
}

/**
 * PostgreSQL's answer to SQLite's group commit for the request path's autocommitted writes (issue
 * 29: a POST's claim of its keys, the Virtual Bank's opening of an account; issue 12: a business's
 * generates): writes of one kind (and key) submitted while the last batch is in flight are written
 * together, in one statement and one commit, instead of one round trip and one commit each.
 *
 * Every item keeps the outcome it would have had alone:
 * - the statement refused for what a row holds (a constraint, a deadlock): the batch is written
 *   again one item at a time, so only that item fails, with its own error;
 * - the database unable to answer (connection lost, shutting down, too slow): every item of the
 *   batch fails with that error, as each would have alone; the outcome of an autocommitted
 *   statement whose answer was lost is unknown to its caller, batched or not;
 * - two items for one row never share a statement, so each sees the other's outcome.
 */
export class WriteBatches<I, R> {
  private readonly batches: KeyedBatches<I, Outcome<R>>;

  constructor(private readonly options: WriteBatchesOptions<I, R>) {
    const { identity } = options;
    this.batches = new KeyedBatches((_, items) => this.write(items), {
      max: options.max ?? 64,
      ...(options.maxRunning === undefined ? {} : { maxRunning: options.maxRunning }),
      fits: (batch, item) => {
        const id = identity(item);
        return !batch.some((other) => identity(other) === id);
      },
    });
  }

  async submit(item: I): Promise<R> {
    const outcome = await this.batches.submit(this.options.key?.(item) ?? "", item);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private async write(items: I[]): Promise<Array<Outcome<R>>> {
    if (items.length > 1) {
      try {
        const results = await this.options.many(items);
        return results.map((value) => ({ ok: true, value }));
      } catch (error) {
        if (isStorageUnavailable(error)) throw error;
      }
    }
    const outcomes: Array<Outcome<R>> = [];
    for (const item of items) {
      try {
        outcomes.push({ ok: true, value: await this.options.one(item) });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}
