import { type Kysely, sql } from "kysely";
import type { Storage } from "./database.js";
import type { Database } from "./schema.js";

/** A database handle a repository may run on: the database itself or a transaction. */
export type Executor = Kysely<Database>;

/**
 * Runs `work` in a transaction meant to read and then write. On SQLite it starts with
 * BEGIN IMMEDIATE, taking the write lock up front, so two processes cannot both read and then
 * fail to upgrade; on PostgreSQL, row locks taken by the work itself (SELECT ... FOR UPDATE,
 * UPDATE) order concurrent writers.
 */
export async function writeTransaction<T>(storage: Storage, work: (trx: Executor) => Promise<T>): Promise<T> {
  if (storage.dialect === "postgres") return storage.db.transaction().execute(work);
  return storage.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}
