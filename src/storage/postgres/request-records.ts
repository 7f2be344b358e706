import type { PostgresStorage } from "../database.js";
import {
  FIND_RECORD,
  INSERT_RECORD,
  type RequestRecord,
  type RequestRecordClaims,
  TAKE_OVER_RECORD,
  takeOverValues,
} from "../request-record-repository.js";
import { named } from "./named.js";

/**
 * Claims on PostgreSQL: autocommitted statements on the pool (unnamed, so that a transaction
 * pooler may sit between). Another process may insert, take over or prune the record between
 * them: the claim then tries again, three times at most, and then counts as in flight.
 */
export function postgresRequestRecordClaims(storage: PostgresStorage): RequestRecordClaims {
  const { pool } = storage;
  return {
    async claim(id, fresh, takeOver) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const record = fresh();
        const inserted = await pool.query(insert.query({ ...id, ...record }));
        if ((inserted.rowCount ?? 0) > 0) return { claimed: record };
        const existing = (await pool.query<RequestRecord>(find.query(id))).rows[0];
        if (!existing) continue; // pruned between the two statements: try again
        const next = takeOver(existing, record);
        if (!next) return { standing: existing };
        const taken = await pool.query(takeOverStatement.query(takeOverValues(existing, next)));
        if ((taken.rowCount ?? 0) > 0) return { claimed: next };
      }
      return { contended: true };
    },
  };
}

const insert = named(INSERT_RECORD);
const find = named(FIND_RECORD);
const takeOverStatement = named(TAKE_OVER_RECORD);
