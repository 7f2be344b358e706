import type SqliteDatabase from "better-sqlite3";
import type { Insertable, Selectable } from "kysely";
import type pg from "pg";
import type { Executor } from "./executor.js";
import { prepared } from "./prepared.js";
import type { RequestRecordsTable } from "./schema.js";

export type RequestRecord = Selectable<RequestRecordsTable>;
export type RecordId = Pick<RequestRecord, "business_id" | "kind" | "key">;

export async function completeRecord(
  db: Executor,
  id: RecordId,
  statusCode: number,
  response: string,
): Promise<void> {
  await db
    .updateTable("request_records")
    .set({ state: "done", status_code: statusCode, response })
    .where("business_id", "=", id.business_id)
    .where("kind", "=", id.kind)
    .where("key", "=", id.key)
    .execute();
}

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

/**
 * The claim's statements for a synchronous write (SQLite's group commit), prepared once per
 * connection: the request path's first write, without the query builder.
 */
export const recordsNow = {
  /** Inserts the record unless its key exists; true when this call inserted it. */
  insertIfAbsent(db: SqliteDatabase.Database, row: Insertable<RequestRecordsTable>): boolean {
    return prepared(db, INSERT_IF_ABSENT).run(row).changes > 0;
  },
  find(db: SqliteDatabase.Database, id: RecordId): RequestRecord | undefined {
    return prepared(db, FIND).get(id) as RequestRecord | undefined;
  },
  /** Takes the record over for a new claim (the caller holds the write: no one else can). */
  takeOver(
    db: SqliteDatabase.Database,
    id: RecordId,
    next: Pick<RequestRecord, "fingerprint" | "locked_until" | "expires_at" | "created_at" | "reference">,
  ): void {
    prepared(db, TAKE_OVER).run({ ...id, ...next });
  },
  /** Stores the answer of a claimed request (inside the write that made its effect). */
  complete(db: SqliteDatabase.Database, id: RecordId, statusCode: number, response: string): void {
    prepared(db, COMPLETE).run({ ...id, status_code: statusCode, response });
  },
};

const INSERT_IF_ABSENT = `insert into request_records
  (business_id, kind, key, fingerprint, state, locked_until, expires_at, created_at, reference)
  values (@business_id, @kind, @key, @fingerprint, @state, @locked_until, @expires_at, @created_at, @reference)
  on conflict (business_id, kind, key) do nothing`;
const FIND = "select * from request_records where business_id = @business_id and kind = @kind and key = @key";
const COMPLETE = `update request_records set state = 'done', status_code = @status_code, response = @response
  where business_id = @business_id and kind = @kind and key = @key`;
const TAKE_OVER = `update request_records
  set fingerprint = @fingerprint, locked_until = @locked_until, expires_at = @expires_at,
      created_at = @created_at, reference = @reference, state = 'in_flight', status_code = null, response = null
  where business_id = @business_id and kind = @kind and key = @key`;

type FreshRecord = Pick<
  RequestRecord,
  "fingerprint" | "locked_until" | "expires_at" | "created_at" | "reference"
>;

/**
 * The claim's statements on PostgreSQL (unnamed, so that a transaction pooler may sit between),
 * each autocommitted: the request path's first write, without the query builder.
 */
export const recordsOnPool = {
  /** Inserts the record unless its key exists; true when this call inserted it. */
  async insertIfAbsent(pool: pg.Pool, id: RecordId, fresh: FreshRecord): Promise<boolean> {
    const result = await pool.query({
      text: PG_INSERT_IF_ABSENT,
      values: [
        id.business_id,
        id.kind,
        id.key,
        fresh.fingerprint,
        fresh.locked_until,
        fresh.expires_at,
        fresh.created_at,
        fresh.reference,
      ],
    });
    return (result.rowCount ?? 0) > 0;
  },
  async find(pool: pg.Pool, id: RecordId): Promise<RequestRecord | undefined> {
    const result = await pool.query<RequestRecord>({
      text: PG_FIND,
      values: [id.business_id, id.kind, id.key],
    });
    return result.rows[0];
  },
  /**
   * Replaces a record that is expired or whose holder's lease ran out, provided it is still the
   * version that was read (`seen`): of two processes taking over at once, one wins.
   */
  async takeOver(pool: pg.Pool, seen: RequestRecord, next: FreshRecord): Promise<boolean> {
    const result = await pool.query({
      text: PG_TAKE_OVER,
      values: [
        seen.business_id,
        seen.kind,
        seen.key,
        next.fingerprint,
        next.locked_until,
        next.expires_at,
        next.created_at,
        next.reference,
        seen.state,
        seen.locked_until,
        seen.expires_at,
      ],
    });
    return (result.rowCount ?? 0) > 0;
  },
};

const PG_INSERT_IF_ABSENT = `insert into request_records
  (business_id, kind, key, fingerprint, state, locked_until, expires_at, created_at, reference)
  values ($1, $2, $3, $4, 'in_flight', $5, $6, $7, $8)
  on conflict (business_id, kind, key) do nothing`;
const PG_FIND = "select * from request_records where business_id = $1 and kind = $2 and key = $3";
const PG_TAKE_OVER = `update request_records
  set fingerprint = $4, locked_until = $5, expires_at = $6, created_at = $7, reference = $8,
      state = 'in_flight', status_code = null, response = null
  where business_id = $1 and kind = $2 and key = $3
    and state = $9 and locked_until = $10 and expires_at = $11`;
