import type { AnswerRecords, RecordKey } from "./unit-of-work.js";

// The request path's first write, a claim of a request's keys: here, in the core, because
// storage implements it once per dialect (sqlite/ and postgres/request-records.ts) and gathers it
// with its stores, and idempotency/request-records.ts decides with it. Its records are in the
// domain's names; storage maps its rows to them.

/** A record's state: its request running, or answered. */
export type RequestRecordState = "in_flight" | "done";

/** A request's record as a claim finds it standing. */
export interface StandingRecord {
  /** SHA-256 of method, route and canonical body: the same key with another body is a misuse. */
  fingerprint: string;
  state: RequestRecordState;
  statusCode: number | null;
  response: string | null;
  /** The reference sent to the bank by the request holding the key (kept across its retries). */
  reference: string | null;
  /** While in flight: after this, the request is presumed dead and the key may be taken over. */
  lockedUntil: string;
  expiresAt: string;
}

/** What a claim writes into its record: whose request it is, until when, and its bank reference. */
export interface FreshRecord {
  fingerprint: string;
  lockedUntil: string;
  expiresAt: string;
  createdAt: string;
  reference: string;
}

/** A claim's outcome at the store: the record written with `claimed`, the one that stands, or lost races. */
export type ClaimAtStore = { claimed: FreshRecord } | { standing: StandingRecord } | { contended: true };

/** One of a request's keys to claim: its record's id, and what the claim writes into it. */
export interface KeyToClaim {
  id: RecordKey;
  fresh: FreshRecord;
}

/** The claims of request records, one implementation per dialect, chosen in compose/ with the stores. */
export interface RequestRecordClaims {
  /**
   * Claims a request's `keys` in order, up to the first that is not claimed (a later key is not
   * tried): each inserts its `fresh` record unless its key has a record; when it has, the
   * domain's `takeOver` says from the standing record whether to replace it, and with what. One
   * outcome per key tried, in order.
   */
  claim(
    keys: readonly KeyToClaim[],
    takeOver: (existing: StandingRecord, fresh: FreshRecord) => FreshRecord | undefined,
  ): Promise<ClaimAtStore[]>;
  /** Stores a claimed request's answer, after its effect (a request whose write did not store it). */
  complete(answer: AnswerRecords): Promise<void>;
}
