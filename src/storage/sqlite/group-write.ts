import type SqliteDatabase from "better-sqlite3";
import type { GroupCommit } from "../group-commit.js";
import { prepared } from "../prepared.js";
import { type AnswerOptions, recordsOf, refuseAnswered, type UnitOfWork } from "../unit-of-work.js";
import { COMPLETE_RECORD, completeRecordRows } from "./complete-records.js";

/**
 * Runs a synchronous write in SQLite's next group commit (see group-commit.ts); given a request's
 * unit of work, the answer is stored for the request's keys inside the write's own savepoint, so
 * the effect and its answer commit, or roll back, together.
 */
export function groupWrite<T>(
  group: GroupCommit,
  write: (db: SqliteDatabase.Database) => T,
  unit: UnitOfWork | undefined,
  options: AnswerOptions<T> = {},
): Promise<T> {
  if (unit?.answered) refuseAnswered(unit);
  return group.run((db) => {
    const result = write(db);
    const answer = recordsOf(unit, result, options);
    if (answer) for (const row of completeRecordRows(answer)) prepared(db, COMPLETE_RECORD).run(row);
    return result;
  });
}
