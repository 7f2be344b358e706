import { randomUUID } from "node:crypto";
import {
  completeRecord,
  deleteExpiredRecords,
  expireLease,
  findRecord,
  insertRecordIfAbsent,
  type RecordId,
  takeOverRecord,
} from "../storage/request-record-repository.js";
import type { RequestRecordKind } from "../storage/schema.js";
import type { Executor } from "../storage/transactions.js";

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What a POST that names a key (a signature or an Idempotency-Key) may do. */
export type Claim =
  /** First of its key (or the earlier holder died): run it, then complete or release the claim. */
  | { outcome: "claimed"; claim: RecordId; reference: string }
  /** Already answered: send this answer again. */
  | { outcome: "replay"; statusCode: number; response: string }
  /** The first request with this key is still running. */
  | { outcome: "in_flight" }
  /** The key was used for a different request. */
  | { outcome: "mismatch" };

export interface RequestRecordsOptions {
  db: Executor;
  /** How long an in-flight claim holds before it is presumed dead (set to the request timeout). */
  leaseMs: number;
  now?: () => number;
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

  async claim(
    businessId: string,
    kind: RequestRecordKind,
    key: string,
    fingerprint: string,
    ttlMs: number,
  ): Promise<Claim> {
    const id = { business_id: businessId, kind, key };
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.now();
      const fresh = {
        fingerprint,
        locked_until: new Date(now + this.options.leaseMs).toISOString(),
        expires_at: new Date(now + ttlMs).toISOString(),
        created_at: new Date(now).toISOString(),
        reference: randomUUID(),
      };
      if (await insertRecordIfAbsent(this.options.db, { ...id, ...fresh, state: "in_flight" })) {
        return { outcome: "claimed", claim: id, reference: fresh.reference };
      }
      const existing = await findRecord(this.options.db, id);
      if (!existing) continue; // pruned between the two statements: try again
      const nowIso = fresh.created_at;
      const abandoned = existing.state === "in_flight" && existing.locked_until <= nowIso;
      const expired = existing.expires_at <= nowIso;
      if (expired || abandoned) {
        // The same request again (a retry after a failure, or after its process died) keeps the
        // bank reference it was given: a bank that dedupes on it never opens a second account.
        const sameRequest = !expired && existing.fingerprint === fingerprint && existing.reference !== null;
        const next = { ...fresh, reference: sameRequest ? (existing.reference as string) : fresh.reference };
        if (await takeOverRecord(this.options.db, existing, next)) {
          return { outcome: "claimed", claim: id, reference: next.reference };
        }
        continue;
      }
      if (existing.fingerprint !== fingerprint) return { outcome: "mismatch" };
      if (existing.state === "in_flight") return { outcome: "in_flight" };
      return {
        outcome: "replay",
        statusCode: existing.status_code ?? 500,
        response: existing.response ?? "",
      };
    }
    return { outcome: "in_flight" };
  }

  /**
   * Stores the answer of a claimed request, for every later request with the same key; pass the
   * transaction that made the request's effect to store both atomically.
   */
  complete(
    claim: RecordId,
    statusCode: number,
    response: string,
    db: Executor = this.options.db,
  ): Promise<void> {
    return completeRecord(db, claim, statusCode, response);
  }

  /**
   * Frees a claim whose request failed without effect (5xx), so that a retry runs again: with
   * the same bank reference when it is the same request.
   */
  release(claim: RecordId): Promise<void> {
    return expireLease(this.options.db, claim, new Date(this.now()).toISOString());
  }

  /** Deletes every record past its expiry; returns how many. */
  prune(): Promise<number> {
    return deleteExpiredRecords(this.options.db, new Date(this.now()).toISOString());
  }
}
