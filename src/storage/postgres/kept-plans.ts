import { type NamedStatement, named } from "./named.js";

/**
 * A statement of the request path as a PL/pgSQL function, so that the server keeps its plan per
 * connection: sent as it is (unnamed, values written in: inline.ts, as a transaction pooler
 * requires), a statement is parsed and planned at every call, which for a statement of many
 * parameters costs more than running it. The statement is written once, with its `@name`
 * parameters; the function is made from it, its parameters `p_name` typed by the statement's
 * first cast of each (`@ids::text[]`; text where there is none), and `call` runs it with the same
 * values. A migration creates the function (`create`), and recreates it whenever the statement
 * changes: `source` is what the server should hold as the function's body, for a test to compare.
 *
 * The server plans such a function's statement once per connection (after five calls), from the
 * statistics of that moment, and keeps the plan while the tables grow: made when a table was
 * small, a plan that scans it would scan it whole at every call (a posting's plan cost 11 ms a
 * call once request_records had grown by 30,000 rows). The request path's statements reach each
 * row by its key, a few rows a call, so the function plans them as for large tables: nested loops
 * over indexes, never a hash or a scan.
 */
export interface KeptPlans {
  /** `create or replace function …`, for a migration. */
  readonly create: string;
  /** The function's body as the server keeps it (`pg_proc.prosrc`). */
  readonly source: string;
  /** Its settings as the server keeps them (`pg_proc.proconfig`). */
  readonly settings: readonly string[];
  /** The call, taking the statement's values, selecting the columns `returns` names. */
  readonly call: NamedStatement;
}

/** How the function's statement is planned (see KeptPlans): by key, whatever the tables hold when it is. */
const PLANS_BY_KEY = ["enable_seqscan=off", "enable_hashjoin=off", "enable_mergejoin=off"];

const PARAMETER = /@([a-z_][a-z0-9_]*)(?:::([a-z0-9_]+(?:\[\])?))?/gi;

/** `statement` as the function `name`, returning `returns` (a table's columns: `id text, n integer`). */
export function keptPlans(name: string, statement: NamedStatement, returns: string): KeptPlans {
  const types = new Map<string, string>();
  for (const [, parameter, type] of statement.source.matchAll(PARAMETER)) {
    if (type !== undefined && !types.has(parameter as string)) types.set(parameter as string, type);
  }
  // The parameters are p_-prefixed and, where a name is both a column and an output, the column
  // is meant: the statement was written for the columns.
  const source = `
#variable_conflict use_column
begin
  return query ${statement.source.replace(PARAMETER, (whole, parameter: string) => whole.replace(`@${parameter}`, `p_${parameter}`))};
end
`;
  const parameters = statement.names.map((n) => `p_${n} ${types.get(n) ?? "text"}`).join(", ");
  const columns = returns.split(",").map((column) => column.trim().split(/\s+/)[0]);
  return {
    create: `create or replace function ${name}(${parameters}) returns table(${returns})
  language plpgsql volatile ${PLANS_BY_KEY.map((setting) => `set ${setting.replace("=", " = ")}`).join(" ")} as $kept$${source}$kept$`,
    source,
    settings: PLANS_BY_KEY,
    call: named(
      `select ${columns.join(", ")} from ${name}(${statement.names.map((n) => `@${n}`).join(", ")})`,
    ),
  };
}
