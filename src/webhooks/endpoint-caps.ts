import { FAILURE_RUN } from "./attempt-outcome.js";

/**
 * A due delivery a claim may take, with what its endpoint has in flight: what storage's claim
 * read answers (storage/delivery-repository.ts's dueDeliveries).
 */
export interface DueDelivery {
  id: string;
  endpointId: string;
  /** The endpoint's run of failed attempts (1 in flight at most while it is failing). */
  consecutiveFailures: number;
  /** The endpoint's deliveries leased now. */
  inFlight: number;
}

/**
 * The deliveries to attempt, in order, so that no endpoint has more than `cap` in flight (one,
 * the probe, while it is failing a run): a hanging or refusing receiver holds a few slots, never
 * all of them, and the other endpoints are served on time.
 */
export function withinEndpointCaps(due: readonly DueDelivery[], cap: number): string[] {
  const inFlight = new Map<string, number>();
  const picked: string[] = [];
  for (const delivery of due) {
    const limit = delivery.consecutiveFailures >= FAILURE_RUN ? 1 : cap;
    const current = inFlight.get(delivery.endpointId) ?? delivery.inFlight;
    if (current >= limit) continue;
    inFlight.set(delivery.endpointId, current + 1);
    picked.push(delivery.id);
  }
  return picked;
}
