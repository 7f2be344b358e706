import type pg from "pg";
import type { ClaimAtStore, FreshRecord, RequestRecordClaims } from "../../core/request-record-claims.js";
import type { PostgresStorage } from "../database.js";
import {
  FIND_RECORD,
  freshColumns,
  type RecordId,
  type RequestRecord,
  standingRecord,
  TAKE_OVER_RECORD,
  takeOverValues,
} from "../request-record-repository.js";
import { completeOnPostgres } from "./answered.js";
import { named } from "./named.js";
import { WriteBatches } from "./write-batches.js";

type NewRecord = ReturnType<typeof freshColumns>;

/**
 * Claims on PostgreSQL: autocommitted statements on the pool (unnamed, so that a transaction
 * pooler may sit between). A new record's insert is batched with the other claims in flight
 * (WriteBatches: one statement and one commit for all of them). Another process may insert,
 * take over or prune the record between the statements: the claim then tries again, three times
 * at most, and then counts as in flight.
 */
export function postgresRequestRecordClaims(storage: PostgresStorage): RequestRecordClaims {
  const { pool } = storage;
  const inserts = new WriteBatches<NewRecord, boolean>({
    many: (records) => insertMany(pool, records),
    one: async (record) => (await insertMany(pool, [record]))[0] === true,
    identity: recordKey,
  });
  return {
    complete: (answer) => completeOnPostgres(storage.db, answer),
    async claim(keys, takeOver) {
      const outcomes: ClaimAtStore[] = [];
      for (const { id, fresh } of keys) {
        const outcome = await claimOne(id, fresh, takeOver);
        outcomes.push(outcome);
        if (!("claimed" in outcome)) break;
      }
      return outcomes;
    },
  };

  async function claimOne(
    id: RecordId,
    record: FreshRecord,
    takeOver: Parameters<RequestRecordClaims["claim"]>[1],
  ): Promise<ClaimAtStore> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await inserts.submit(freshColumns(id, record))) return { claimed: record };
      const existing = (await pool.query<RequestRecord>(find.query({ ...id }))).rows[0];
      if (!existing) continue; // pruned between the two statements: try again
      const standing = standingRecord(existing);
      const next = takeOver(standing, record);
      if (!next) return { standing };
      const taken = await pool.query(takeOverStatement.query(takeOverValues(existing, next)));
      if ((taken.rowCount ?? 0) > 0) return { claimed: next };
    }
    return { contended: true };
  }
}

const recordKey = (id: RecordId) => `${id.business_id}\u0000${id.kind}\u0000${id.key}`;

/**
 * The batch's records in one statement; true for each one inserted (its key had no record). In
 * key order, so that two processes' batches take the keys' index entries in one order and never
 * wait on each other in a circle.
 */
async function insertMany(pool: pg.Pool, records: readonly NewRecord[]): Promise<boolean[]> {
  const sorted = [...records].sort((a, b) => (recordKey(a) < recordKey(b) ? -1 : 1));
  const column = (name: keyof NewRecord) => sorted.map((record) => record[name]);
  const result = await pool.query<RecordId>(
    insertManyStatement.query(Object.fromEntries(MANY_COLUMNS.map((name) => [name, column(name)]))),
  );
  const inserted = new Set(result.rows.map(recordKey));
  return records.map((record) => inserted.has(recordKey(record)));
}

const MANY_COLUMNS = [
  "business_id",
  "kind",
  "key",
  "fingerprint",
  "locked_until",
  "expires_at",
  "created_at",
  "reference",
] as const;

const find = named(FIND_RECORD);
const takeOverStatement = named(TAKE_OVER_RECORD);
const insertManyStatement = named(`insert into request_records
  (business_id, kind, key, fingerprint, state, locked_until, expires_at, created_at, reference)
  select r.business_id, r.kind, r.key, r.fingerprint, 'in_flight', r.locked_until, r.expires_at, r.created_at, r.reference
  from unnest(${MANY_COLUMNS.map((name) => `@${name}::text[]`).join(", ")}) as r(${MANY_COLUMNS.join(", ")})
  on conflict (business_id, kind, key) do nothing
  returning business_id, kind, key`);
