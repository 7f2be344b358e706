import type { Selectable } from "kysely";
import type { Executor } from "./executor.js";
import type { RequestRecordsTable } from "./schema.js";
import type { AnswerRecords } from "./unit-of-work.js";

export type RequestRecord = Selectable<RequestRecordsTable>;
export type RecordId = Pick<RequestRecord, "business_id" | "kind" | "key">;

/**
 * Frees a claim for the next request with its key: its lease ends now. The record (and the
 * bank reference in it) stays, so a retry of the same request takes it over with that reference.
 */
export async function expireLease(db: Executor, id: RecordId, now: string): Promise<void> {
  await db
    .updateTable("request_records")
    .set({ locked_until: now })
    .where("state", "=", "in_flight")
    .where("business_id", "=", id.business_id)
    .where("kind", "=", id.kind)
    .where("key", "=", id.key)
    .execute();
}

/**
 * Deletes up to `batch` records past their expiry, oldest expiry first (an index range on
 * expires_at); returns how many. Each call is one short statement, so pruning a large backlog
 * never holds the write lock for long.
 */
export async function deleteExpiredRecords(db: Executor, now: string, batch: number): Promise<number> {
  const result = await db
    .deleteFrom("request_records")
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple("business_id", "kind", "key"),
        "in",
        selectFrom("request_records as r")
          .select(["r.business_id", "r.kind", "r.key"])
          .where("r.expires_at", "<=", now)
          .orderBy("r.expires_at")
          .limit(batch)
          .$asTuple("business_id", "kind", "key"),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What a claim writes into its record: whose request it is, until when, and its bank reference. */
export type FreshRecord = Pick<
  RequestRecord,
  "fingerprint" | "locked_until" | "expires_at" | "created_at"
> & {
  reference: string;
};

/** A claim's outcome at the store: the record written with `claimed`, the one that stands, or lost races. */
export type ClaimAtStore = { claimed: FreshRecord } | { standing: RequestRecord } | { contended: true };

/**
 * The request path's first write, without the query builder, one implementation per dialect
 * (sqlite/ and postgres/request-records.ts), chosen in compose/.
 */
export interface RequestRecordClaims {
  /**
   * Inserts `fresh` for `id` unless its key has a record; when it has, the domain's `takeOver`
   * says from the standing record whether to replace it, and with what.
   */
  claim(
    id: RecordId,
    fresh: FreshRecord,
    takeOver: (existing: RequestRecord, fresh: FreshRecord) => FreshRecord | undefined,
  ): Promise<ClaimAtStore>;
  /** Stores a claimed request's answer, after its effect (a request whose write did not store it). */
  complete(answer: AnswerRecords): Promise<void>;
}

/** A claim's new record, unless its key has one. */
export const INSERT_RECORD = `insert into request_records
  (business_id, kind, key, fingerprint, state, locked_until, expires_at, created_at, reference)
  values (@business_id, @kind, @key, @fingerprint, 'in_flight', @locked_until, @expires_at, @created_at, @reference)
  on conflict (business_id, kind, key) do nothing`;
export const FIND_RECORD =
  "select * from request_records where business_id = @business_id and kind = @kind and key = @key";
/**
 * Replaces a record that is expired or whose holder's lease ran out, provided it is still the
 * version that was read (`seen_*`): of two processes taking over at once, one wins.
 */
export const TAKE_OVER_RECORD = `update request_records
  set fingerprint = @fingerprint, locked_until = @locked_until, expires_at = @expires_at,
      created_at = @created_at, reference = @reference, state = 'in_flight', status_code = null, response = null
  where business_id = @business_id and kind = @kind and key = @key
    and state = @seen_state and locked_until = @seen_locked_until and expires_at = @seen_expires_at`;

/** TAKE_OVER_RECORD's parameters. */
export const takeOverValues = (seen: RequestRecord, next: FreshRecord) => ({
  business_id: seen.business_id,
  kind: seen.kind,
  key: seen.key,
  ...next,
  seen_state: seen.state,
  seen_locked_until: seen.locked_until,
  seen_expires_at: seen.expires_at,
});
