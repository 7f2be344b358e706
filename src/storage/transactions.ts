import { type Kysely, sql } from "kysely";
import type { Storage } from "./database.js";
import { CommitOutcomeUnknownError, isConnectionLost } from "./errors.js";
import type { Database } from "./schema.js";

/** A database handle a repository may run on: the database itself or a transaction. */
export type Executor = Kysely<Database>;

/**
 * Runs `work` in a transaction meant to read and then write. On SQLite it starts with
 * BEGIN IMMEDIATE, taking the write lock up front, so two processes cannot both read and then
 * fail to upgrade; on PostgreSQL, row locks taken by the work itself (SELECT ... FOR UPDATE,
 * UPDATE) order concurrent writers.
 *
 * When the connection to PostgreSQL is lost during COMMIT, the outcome is unknown: that is
 * thrown as CommitOutcomeUnknownError, never as an ordinary failure. (A failed COMMIT on
 * SQLite, in process, is always a rollback.)
 */
export async function writeTransaction<T>(storage: Storage, work: (trx: Executor) => Promise<T>): Promise<T> {
  const begin = storage.dialect === "postgres" ? sql`begin` : sql`begin immediate`;
  return storage.db.connection().execute(async (connection) => {
    await begin.execute(connection);
    let result: T;
    try {
      result = await work(connection);
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
    try {
      await sql`commit`.execute(connection);
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      if (storage.dialect === "postgres" && isConnectionLost(error))
        throw new CommitOutcomeUnknownError(error);
      throw error;
    }
    return result;
  });
}
