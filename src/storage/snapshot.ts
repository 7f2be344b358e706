import { PostgresAdapter, sql } from "kysely";
import type { Executor } from "./executor.js";

/**
 * Runs `read` on one snapshot of the database, so reads made one after the other agree while
 * writers go on (`vas ledger verify` on a live database: balances, entries and payouts read at
 * one instant). PostgreSQL: a read-only REPEATABLE READ transaction (set as its first statement:
 * the service's dialect opens every transaction the same way, postgres-dialect.ts). SQLite: a
 * deferred transaction, whose first read fixes what the WAL shows it, and which takes no write
 * lock. Already in a transaction: `read` runs in it.
 */
export function readInSnapshot<T>(db: Executor, read: (snapshot: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return read(db);
  return db.transaction().execute(async (trx) => {
    if (trx.getExecutor().adapter instanceof PostgresAdapter)
      await sql`set transaction isolation level repeatable read, read only`.execute(trx);
    return read(trx);
  });
}
