import type pg from "pg";

const PARAMETER = /@([a-z_][a-z0-9_]*)/gi;

/**
 * A statement written with named parameters (`@name`, as better-sqlite3 takes them), for
 * node-postgres, which takes numbered ones: compiled once to `$1..$n` in order of first use, a
 * name used twice bound once. `values` are taken from an object by name, so a statement with
 * forty parameters is read and written by name, never by position.
 */
export class NamedStatement {
  /** The statement as written, with its `@name` parameters. */
  readonly source: string;
  readonly text: string;
  readonly names: readonly string[];

  constructor(sql: string) {
    this.source = sql;
    const names: string[] = [];
    this.text = sql.replace(PARAMETER, (_, name: string) => {
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      return `$${index + 1}`;
    });
    this.names = names;
  }

  /** The query for node-postgres; every name must be given (null for SQL NULL), none may be extra. */
  query(values: Readonly<Record<string, unknown>>): pg.QueryConfig {
    const given = Object.keys(values);
    if (given.length !== this.names.length || this.names.some((name) => !(name in values))) {
      const extra = given.filter((name) => !this.names.includes(name));
      const missing = this.names.filter((name) => !(name in values));
      throw new Error(`statement parameters: missing [${missing}], extra [${extra}]`);
    }
    return { text: this.text, values: this.names.map((name) => values[name]) };
  }
}

export const named = (sql: string) => new NamedStatement(sql);
