import { sql } from "kysely";
import type { Storage } from "./database.js";
import { CommitOutcomeUnknownError, isConnectionLost } from "./errors.js";
import type { Executor } from "./executor.js";
import { type AnswerOptions, recordsOf, refuseAnswered, type UnitOfWork } from "./unit-of-work.js";

/**
 * Runs `work` in a transaction meant to read and then write. On SQLite it starts with
 * BEGIN IMMEDIATE, taking the write lock up front, so two processes cannot both read and then
 * fail to upgrade; on PostgreSQL, row locks taken by the work itself (SELECT ... FOR UPDATE,
 * UPDATE) order concurrent writers. Given a request's unit of work, it also stores the request's
 * answer, computed from the result, just before COMMIT.
 *
 * When the connection to PostgreSQL is lost during COMMIT, the outcome is unknown: that is
 * thrown as CommitOutcomeUnknownError, never as an ordinary failure. (A failed COMMIT on
 * SQLite, in process, is always a rollback.)
 */
export async function writeTransaction<T>(
  storage: Storage,
  work: (trx: Executor) => Promise<T>,
  unit?: UnitOfWork,
  options: AnswerOptions<T> = {},
): Promise<T> {
  const begin = sql.raw(storage.beginWrite);
  if (unit?.answered) refuseAnswered(unit);
  return storage.db.connection().execute(async (connection) => {
    await begin.execute(connection);
    let result: T;
    try {
      result = await work(connection);
      const answer = recordsOf(unit, result, options);
      if (answer) await storage.completeRecords(connection, answer);
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
    await commit(connection);
    return result;
  });
}

async function commit(connection: Executor): Promise<void> {
  try {
    await sql`commit`.execute(connection);
  } catch (error) {
    await sql`rollback`.execute(connection).catch(() => {});
    // Only PostgreSQL's connection can be lost; a failed COMMIT on SQLite, in process, rolled back.
    if (isConnectionLost(error)) throw new CommitOutcomeUnknownError(error);
    throw error;
  }
}
