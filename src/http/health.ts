import type { StorageFailure } from "../core/storage-failures.js";

/** How long a failed write keeps the service degraded when no write has succeeded since. */
export const RECENT_FAILURE_MS = 10_000;
/** How long a probe's result answers health checks (several load balancers may ask each second). */
export const PROBE_REUSE_MS = 1_000;

export type Health =
  | { ok: true }
  | { ok: false; database: "unreachable" | "refusing-writes"; reason: string };

/**
 * Whether this process can do its job: the database answers and takes writes. It combines a
 * write probe (a passing one is reused for PROBE_REUSE_MS unless a request failed on storage
 * since; a failing one is never reused) with what requests have seen: a storage failure with no successful write since, in
 * the last RECENT_FAILURE_MS, is degraded even if the probe passes (a full disk can let a
 * one-row rewrite through and still refuse new rows).
 */
export class HealthMonitor {
  private lastFailure: { at: number; kind: StorageFailure } | undefined;
  private lastSuccessAt = Number.NEGATIVE_INFINITY;
  private probe: { at: number; result: Health } | undefined;
  private running: Promise<Health> | undefined;

  constructor(
    /** Throws when the database cannot take a write; returns the failure kind of what it threw. */
    private readonly probeWrite: () => Promise<void>,
    /** What storage failure an error is, if any (storage's classifier, handed in by compose/). */
    readonly failureOf: (error: unknown) => StorageFailure | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request failed because of storage. */
  noteFailure(kind: StorageFailure): void {
    this.lastFailure = { at: this.now(), kind };
  }

  /** A request's write committed. */
  noteWriteCommitted(): void {
    this.lastSuccessAt = this.now();
  }

  async check(): Promise<Health> {
    const now = this.now();
    const failure = this.lastFailure;
    // Only a passing probe is reused: a failing one is run again at once, so recovery shows at once.
    const reusable =
      this.probe?.result.ok &&
      now - this.probe.at < PROBE_REUSE_MS &&
      !(failure && failure.at >= this.probe.at);
    const probed = reusable && this.probe ? this.probe.result : await this.runProbe();
    if (!probed.ok) return probed;
    if (failure && failure.at > this.lastSuccessAt && now - failure.at < RECENT_FAILURE_MS) {
      return {
        ok: false,
        database: failure.kind,
        reason:
          failure.kind === "refusing-writes"
            ? "the last writes failed: the database refuses writes (disk full, I/O error or read-only)"
            : "the last writes failed: the database did not answer",
      };
    }
    return probed;
  }

  /** One probe at a time, however many checks arrive together. */
  private runProbe(): Promise<Health> {
    this.running ??= (async (): Promise<Health> => {
      const at = this.now();
      let result: Health;
      try {
        await this.probeWrite();
        result = { ok: true };
      } catch (error) {
        const kind = this.failureOf(error) ?? "unreachable";
        result = {
          ok: false,
          database: kind,
          reason:
            kind === "refusing-writes"
              ? "the database refuses writes (disk full, I/O error or read-only)"
              : "the database does not answer",
        };
      }
      this.probe = { at, result };
      return result;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }
}
