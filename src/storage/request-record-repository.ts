import type { Selectable } from "kysely";
import type { FreshRecord, StandingRecord } from "../core/request-record-claims.js";
import type { Executor } from "./executor.js";
import type { RequestRecordsTable } from "./schema.js";

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

/** The record a claim writes, as its columns. */
export const freshColumns = (id: RecordId, fresh: FreshRecord) => ({
  ...id,
  fingerprint: fresh.fingerprint,
  locked_until: fresh.lockedUntil,
  expires_at: fresh.expiresAt,
  created_at: fresh.createdAt,
  reference: fresh.reference,
});

/** A standing record as the claim's decision reads it. */
export const standingRecord = (row: RequestRecord): StandingRecord => ({
  fingerprint: row.fingerprint,
  state: row.state,
  statusCode: row.status_code,
  response: row.response,
  reference: row.reference,
  lockedUntil: row.locked_until,
  expiresAt: row.expires_at,
});

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
  ...freshColumns({ business_id: seen.business_id, kind: seen.kind, key: seen.key }, next),
  seen_state: seen.state,
  seen_locked_until: seen.locked_until,
  seen_expires_at: seen.expires_at,
});
