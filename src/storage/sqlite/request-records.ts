import type SqliteDatabase from "better-sqlite3";
import type { ClaimAtStore, FreshRecord, RequestRecordClaims } from "../../core/request-record-claims.js";
import type { RecordKey } from "../../core/unit-of-work.js";
import type { SqliteStorage } from "../database.js";
import { prepared } from "../prepared.js";
import {
  FIND_RECORD,
  freshColumns,
  INSERT_RECORD,
  type RequestRecord,
  standingRecord,
  TAKE_OVER_RECORD,
  takeOverValues,
} from "../request-record-repository.js";
import { completeOnSqlite } from "./complete-records.js";

/**
 * Claims on SQLite: a request's keys in one synchronous write in the writer's group commit.
 * Nothing else can run between its statements, so a claim never loses a race and needs no retry.
 */
export function sqliteRequestRecordClaims(storage: SqliteStorage): RequestRecordClaims {
  return {
    claim: (keys, takeOver) =>
      storage.group.run((db) => {
        const outcomes: ClaimAtStore[] = [];
        for (const { id, fresh } of keys) {
          const outcome = claimOne(db, id, fresh, takeOver);
          outcomes.push(outcome);
          if (!("claimed" in outcome)) break;
        }
        return outcomes;
      }),
    complete: (answer) => completeOnSqlite(storage.db, answer),
  };
}

function claimOne(
  db: SqliteDatabase.Database,
  id: RecordKey,
  record: FreshRecord,
  takeOver: Parameters<RequestRecordClaims["claim"]>[1],
): ClaimAtStore {
  if (prepared(db, INSERT_RECORD).run(freshColumns(id, record)).changes > 0) return { claimed: record };
  const existing = prepared(db, FIND_RECORD).get(id) as RequestRecord | undefined;
  if (!existing) throw new Error("a request record vanished inside its write");
  const standing = standingRecord(existing);
  const next = takeOver(standing, record);
  if (!next) return { standing };
  prepared(db, TAKE_OVER_RECORD).run(takeOverValues(existing, next));
  return { claimed: next };
}
