import type { Insertable, Selectable } from "kysely";
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

export async function deleteExpiredRecords(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom("request_records").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
