import type SqliteDatabase from "better-sqlite3";
import type { Insertable, Selectable } from "kysely";
import { prepared } from "./prepared.js";
import type { RequestRecordsTable } from "./schema.js";
import type { Executor } from "./transactions.js";

export type RequestRecord = Selectable<RequestRecordsTable>;
export type RecordId = Pick<RequestRecord, "business_id" | "kind" | "key">;

/** Inserts the record unless its key exists; true when this call inserted it. */
export async function insertRecordIfAbsent(
  db: Executor,
  row: Insertable<RequestRecordsTable>,
): Promise<boolean> {
  const result = await db
    .insertInto("request_records")
    .values(row)
    .onConflict((oc) => oc.columns(["business_id", "kind", "key"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export function findRecord(db: Executor, id: RecordId): Promise<RequestRecord | undefined> {
  return db
    .selectFrom("request_records")
    .selectAll()
    .where("business_id", "=", id.business_id)
    .where("kind", "=", id.kind)
    .where("key", "=", id.key)
    .executeTakeFirst();
}

/**
 * Replaces a record that is expired or whose holder's lease ran out, provided it is still the
 * version that was read (`seen`): of two processes taking over at once, one wins.
 */
export async function takeOverRecord(
  db: Executor,
  seen: RequestRecord,
  next: Pick<RequestRecord, "fingerprint" | "locked_until" | "expires_at" | "created_at" | "reference">,
): Promise<boolean> {
  const result = await db
    .updateTable("request_records")
    .set({ ...next, state: "in_flight", status_code: null, response: null })
    .where("business_id", "=", seen.business_id)
    .where("kind", "=", seen.kind)
    .where("key", "=", seen.key)
    .where("state", "=", seen.state)
    .where("locked_until", "=", seen.locked_until)
    .where("expires_at", "=", seen.expires_at)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

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
