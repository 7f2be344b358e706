/** One piece of background work, run every `intervalMs` while the process runs. */
export interface Job {
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
}

/**
 * Background work with a lifecycle: jobs start together, never overlap with themselves, and
 * stop together; stop() waits for the runs in flight, so a graceful shutdown finishes them.
 */
export class JobRunner {
  private readonly jobs: Job[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private started = false;

  constructor(private readonly onError: (job: string, error: unknown) => void) {}

  add(job: Job): void {
    if (this.started) throw new Error(`job ${job.name} added after start`);
    this.jobs.push(job);
  }

  /** The names of the registered jobs (for logs and tests). */
  names(): string[] {
    return this.jobs.map((job) => job.name);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const job of this.jobs) this.schedule(job);
  }

  /** Runs one job now (tests, and a first run at start if wanted); errors go to onError. */
  runOnce(job: Job): Promise<void> {
    const run = job
      .run()
      .catch((error: unknown) => this.onError(job.name, error))
      .then(() => {});
    this.running.add(run);
    return run.finally(() => this.running.delete(run));
  }

  private schedule(job: Job): void {
    const timer = setTimeout(async () => {
      this.timers.delete(timer);
      await this.runOnce(job);
      if (this.started) this.schedule(job);
    }, job.intervalMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Stops scheduling and waits for the runs in flight. */
  async stop(): Promise<void> {
    this.started = false;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.running);
  }
}
