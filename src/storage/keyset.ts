import { type RawBuilder, type SqlBool, sql } from "kysely";
import type { After } from "../core/time-window.js";

/**
 * Rows after `after` in (time, id) order, as one row-value comparison (SQLite and PostgreSQL
 * both compare `(a, b) > (x, y)` in the index's order): what keyset paging continues from.
 */
export const afterRow = (timeColumn: string, idColumn: string, after: After): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${sql.ref(timeColumn)}, ${sql.ref(idColumn)}) > (${after.time}, ${after.id})`;

/** Rows before `before` in (time, id) order: keyset paging that walks newest first. */
export const beforeRow = (
  timeColumn: string,
  idColumn: string,
  before: { time: string; id: string | number },
): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${sql.ref(timeColumn)}, ${sql.ref(idColumn)}) < (${before.time}, ${before.id})`;
