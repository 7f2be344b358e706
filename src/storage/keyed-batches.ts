/**
 * Batches of concurrent work per key (issue 12: PostgreSQL generates, one business's in one
 * statement). Items submitted for a key while a batch of that key is in flight wait, and go
 * together in the next one; so at most one batch per key runs at a time, and a key's batch
 * holds everything that arrived while the one before it ran (up to `max`). An item that `fits`
 * refuses waits for a later batch. Keys are independent: their batches run side by side, at
 * most `maxRunning` at once; a key waiting for a slot keeps gathering items into its batch.
 */
export class KeyedBatches<I, R> {
  private readonly waiting = new Map<string, Array<Pending<I, R>>>();
  /** Batches running now, across keys, and the keys waiting for one of them to end. */
  private running = 0;
  private readonly turns: Array<() => void> = [];

  /**
   * `run` does one batch and returns one result per item, in order; if it throws, every item of
   * the batch fails with that error.
   */
  constructor(
    private readonly run: (key: string, items: I[]) => Promise<R[]>,
    private readonly options: {
      max: number;
      fits?: (batch: readonly I[], item: I) => boolean;
      /** At most this many batches run at once, whatever their keys (default: no limit). */
      maxRunning?: number;
    },
  ) {}

  submit(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      // The key is idle: its first batch starts on the next turn, with what arrived meanwhile.
      this.waiting.set(key, [{ item, resolve, reject }]);
      setImmediate(() => void this.drain(key));
    });
  }

  /** Runs the key's batches one after another until nothing waits. */
  private async drain(key: string): Promise<void> {
    for (;;) {
      if ((this.waiting.get(key) ?? []).length === 0) {
        this.waiting.delete(key);
        return;
      }
      // Waiting for a slot, the batch keeps growing: it is cut when it can run.
      await this.turn();
      const queue = this.waiting.get(key) ?? [];
      const batch: Array<Pending<I, R>> = [];
      const later: Array<Pending<I, R>> = [];
      const items: I[] = [];
      for (const pending of queue) {
        if (batch.length < this.options.max && (this.options.fits?.(items, pending.item) ?? true)) {
          batch.push(pending);
          items.push(pending.item);
        } else {
          later.push(pending);
        }
      }
      // What arrives while this batch runs queues behind `later`, for the next batch.
      this.waiting.set(key, later);
      try {
        const results = await this.run(key, items);
        for (const [i, pending] of batch.entries()) pending.resolve(results[i] as R);
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      } finally {
        this.running--;
        this.turns.shift()?.();
      }
    }
  }

  /** Waits for a running slot (maxRunning), then takes it. */
  private async turn(): Promise<void> {
    const max = this.options.maxRunning ?? Number.POSITIVE_INFINITY;
    while (this.running >= max) await new Promise<void>((resolve) => this.turns.push(resolve));
    this.running++;
  }
}

interface Pending<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}
