import utils from "pg/lib/utils.js";
import type { NamedStatement } from "./named.js";

/**
 * A statement with its values written in as literals, for the simple query protocol, which takes
 * several statements in one message (one round trip) but no parameters. Each value is rendered
 * as node-postgres would send it as a parameter (`prepareValue`: arrays as array literals, objects
 * as JSON) and quoted by `escapeLiteral` (libpq's rule: quotes and backslashes doubled, E'' when
 * there is a backslash), so the server reads it as an untyped literal, resolved as a parameter
 * is; NULL stays NULL. Binary values are refused (no statement written this way takes one).
 */
export function inlineStatement(
  statement: NamedStatement,
  values: Readonly<Record<string, unknown>>,
): string {
  const query = statement.query(values);
  const literals = (query.values ?? []).map(literal);
  return query.text.replace(/\$(\d+)/g, (_, index: string) => literals[Number(index) - 1] as string);
}

function literal(value: unknown): string {
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) {
    throw new TypeError("a binary value cannot be written in as a literal");
  }
  const prepared = utils.prepareValue(value);
  if (prepared === null) return "null";
  if (typeof prepared !== "string") throw new TypeError("a binary value cannot be written in as a literal");
  return utils.escapeLiteral(prepared);
}
