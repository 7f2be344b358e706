import type SqliteDatabase from "better-sqlite3";

const cache = new WeakMap<SqliteDatabase.Database, Map<string, SqliteDatabase.Statement>>();

/**
 * The connection's statement for `sql`, prepared on first use and kept: the hot path's
 * statements are compiled once per connection, never per call.
 */
export function prepared(db: SqliteDatabase.Database, sql: string): SqliteDatabase.Statement {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
