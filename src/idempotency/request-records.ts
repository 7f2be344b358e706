import { randomUUID } from "node:crypto";
import type { FreshRecord, RequestRecordClaims, StandingRecord } from "../core/request-record-claims.js";
import type { RecordKey, RequestRecordKind } from "../core/unit-of-work.js";
import type { Executor } from "../storage/executor.js";
import { deleteExpiredRecords, expireLease } from "../storage/request-record-repository.js";

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What a POST that names a key (a signature or an Idempotency-Key) may do. */
export type Claim =
  /** First of its key (or the earlier holder died): run it, then complete or release the claim. */
  | { outcome: "claimed"; claim: RecordKey; reference: string }
  /** Already answered: send this answer again. */
  | { outcome: "replay"; statusCode: number; response: string }
  /** The first request with this key is still running. */
  | { outcome: "in_flight" }
  /** The key was used for a different request. */
  | { outcome: "mismatch" };

/** One key a request names, and how long its record is kept. */
export interface KeyOfRequest {
  kind: RequestRecordKind;
  key: string;
  ttlMs: number;
}

export interface RequestRecordsOptions {
  db: Executor;
  /** The claim's write, in the database's own dialect. */
  claims: RequestRecordClaims;
  /** How long an in-flight claim holds before it is presumed dead (set to the request timeout). */
  leaseMs: number;
  now?: () => number;
}

/**
 * What a claim of a key whose record exists may take over it with: the record is expired, or its
 * holder's lease ran out. Undefined when it still stands.
 */
function takeOver(existing: StandingRecord, fresh: FreshRecord): FreshRecord | undefined {
  const abandoned = existing.state === "in_flight" && existing.lockedUntil <= fresh.createdAt;
  const expired = existing.expiresAt <= fresh.createdAt;
  if (!expired && !abandoned) return undefined;
  // The same request again (a retry after a failure, or after its process died) keeps the bank
  // reference it was given: a bank that dedupes on it never opens a second account.
  const sameRequest = !expired && existing.fingerprint === fresh.fingerprint && existing.reference !== null;
  return { ...fresh, reference: sameRequest ? (existing.reference as string) : fresh.reference };
}

/** What a request gets when its key's record stands: another request's, in flight, or answered. */
function refusal(existing: StandingRecord, fingerprint: string): Claim {
  if (existing.fingerprint !== fingerprint) return { outcome: "mismatch" };
  if (existing.state === "in_flight") return { outcome: "in_flight" };
  return { outcome: "replay", statusCode: existing.statusCode ?? 500, response: existing.response ?? "" };
}

/**
 * The memory of POSTs already seen, kept in the database so that every process shares it:
 * the first request with a key runs; later ones get its stored answer, a 409 while it runs, or
 * a 422 if the key came with another request.
 */
export class RequestRecords {
  private readonly now: () => number;

  constructor(private readonly options: RequestRecordsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Claims a request's `keys` (its `fingerprint` the same for each) in order, in one write, up
   * to the first that is not claimed: a later key is not tried. One claim per key tried.
   */
  async claim(businessId: string, keys: readonly KeyOfRequest[], fingerprint: string): Promise<Claim[]> {
    const now = this.now();
    const toClaim = keys.map(({ kind, key, ttlMs }) => ({
      id: { business_id: businessId, kind, key },
      fresh: this.fresh(now, fingerprint, ttlMs),
    }));
    const outcomes = await this.options.claims.claim(toClaim, takeOver);
    return toClaim.flatMap(({ id }, i): Claim[] => {
      const outcome = outcomes[i];
      if (!outcome) return []; // not tried: a key before it was not claimed
      if ("claimed" in outcome)
        return [{ outcome: "claimed", claim: id, reference: outcome.claimed.reference }];
      if ("standing" in outcome) return [refusal(outcome.standing, fingerprint)];
      return [{ outcome: "in_flight" }];
    });
  }

  private fresh(now: number, fingerprint: string, ttlMs: number): FreshRecord {
    return {
      fingerprint,
      lockedUntil: new Date(now + this.options.leaseMs).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
      createdAt: new Date(now).toISOString(),
      reference: randomUUID(),
    };
  }

  /**
   * Stores the answer of a claimed request whose write did not store it, for every later request
   * with the same key (a write that made an effect stores its answer itself: the unit of work).
   */
  complete(claim: RecordKey, statusCode: number, response: string): Promise<void> {
    return this.options.claims.complete({
      statusCode,
      response,
      kinds: [claim.kind],
      keys: [claim.key],
      businessIds: [claim.business_id],
    });
  }

  /**
   * Frees a claim whose request failed without effect (5xx), so that a retry runs again: with
   * the same bank reference when it is the same request.
   */
  release(claim: RecordKey): Promise<void> {
    return expireLease(this.options.db, claim, new Date(this.now()).toISOString());
  }

  /**
   * Runs `finish` (a claim's release or completion that failed because the database did not
   * answer) again until it succeeds, backing off from 100 ms to 2 s, for as long as the claim's
   * lease would have held it anyway: a key is free again as soon as the database answers (after
   * a pooler or database restart), not a lease later. Past the lease a retry takes the claim
   * over by itself, so nothing is left to do.
   */
  finishWhenReachable(finish: () => Promise<void>): void {
    const deadline = this.now() + this.options.leaseMs;
    const attempt = (delayMs: number) => {
      setTimeout(() => {
        finish().catch(() => {
          if (this.now() + delayMs < deadline) attempt(Math.min(delayMs * 2, 2_000));
        });
      }, delayMs).unref();
    };
    attempt(100);
  }

  /**
   * Deletes the records past their expiry, `batch` at a time, yielding to other work between
   * batches and stopping after `maxBatches` (the job runs again soon); returns how many went.
   */
  async prune(batch = 500, maxBatches = 40): Promise<number> {
    const now = new Date(this.now()).toISOString();
    let removed = 0;
    for (let i = 0; i < maxBatches; i++) {
      const gone = await deleteExpiredRecords(this.options.db, now, batch);
      removed += gone;
      if (gone < batch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return removed;
  }
}
