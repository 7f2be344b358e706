import { type RawBuilder, sql } from "kysely";

const PARAMETER = /@([a-z_][a-z0-9_]*)/gi;

/**
 * A statement written with named parameters (`@name`, as the hot path's statements are: better-
 * sqlite3 binds them, postgres/named.ts numbers them) for the query builder, which binds each as
 * its dialect does: so a cold-path transaction runs the hot path's own statement, not a second
 * spelling of it. Every name must be given (null for SQL NULL).
 */
export function namedSql<Row = unknown>(
  text: string,
  values: Readonly<Record<string, unknown>>,
): RawBuilder<Row> {
  const parts = text.split(PARAMETER);
  const pieces = parts.map((part, i) => {
    if (i % 2 === 0) return sql.raw(part);
    if (!(part in values)) throw new Error(`statement parameter @${part} was not given`);
    return sql.val(values[part]);
  });
  return sql<Row>`${sql.join(pieces, sql.raw(""))}`;
}
