import { z } from "zod";

// Faults the Virtual Bank server injects on demand (PUT /sandbox/faults), so that tests and
// integrators can watch the service meet a slow, failing or forgetful bank.

export const faultsSchema = z
  .object({
    /** Every API call waits this long before it is handled. */
    latencyMs: z.number().int().min(0).max(120_000),
    /** The next N API calls are answered HTTP 500 without being acted on. */
    failNext: z.number().int().min(0).max(1_000_000),
    /** The next N API calls are acted on, then never answered (the caller times out). */
    hangNext: z.number().int().min(0).max(1_000_000),
    /** The next N transfers out are refused (AC100004) without being acted on. */
    refuseTransfers: z.number().int().min(0).max(1_000_000),
    /** The next N notification attempts are lost on the way: never sent, retried later. */
    dropNotifications: z.number().int().min(0).max(1_000_000),
    /** Every notification attempt is sent this many extra times, all at once. */
    duplicateNotifications: z.number().int().min(0).max(20),
    /**
     * Order numbers of transfers (in or out) the bank's statement and queries no longer know, as
     * if its records had lost them: reconciliation then finds them missing at the bank.
     */
    forgetTransfers: z.array(z.string().min(1).max(100)).max(1_000),
  })
  .strict();

export type Faults = z.infer<typeof faultsSchema>;

export const NO_FAULTS: Faults = {
  latencyMs: 0,
  failNext: 0,
  hangNext: 0,
  refuseTransfers: 0,
  dropNotifications: 0,
  duplicateNotifications: 0,
  forgetTransfers: [],
};

/** The faults in force; the counted ones are used up one at a time. */
export class FaultPlan {
  private current: Faults = { ...NO_FAULTS };

  get(): Faults {
    return { ...this.current, forgetTransfers: [...this.current.forgetTransfers] };
  }

  /** Sets the named faults (the others stay); returns all of them. */
  set(changes: Partial<Faults>): Faults {
    this.current = { ...this.current, ...changes };
    return this.get();
  }

  /** Whether this call (or attempt) takes one of the counted fault's remaining uses. */
  take(fault: "failNext" | "hangNext" | "refuseTransfers" | "dropNotifications"): boolean {
    if (this.current[fault] <= 0) return false;
    this.current[fault]--;
    return true;
  }
}
