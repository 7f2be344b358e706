import type SqliteDatabase from "better-sqlite3";
import type pg from "pg";
import type { AccountListRow } from "./account-repository.js";

// The reads on the request path, as statements prepared once per dialect, beside the query
// builder rather than through it (issue 12): Kysely builds and compiles a query on every call,
// which cost more than the read itself.

/** One page of a business's accounts and the count it was cut from, read together. */
export interface AccountPage {
  /** Accounts the business has ever created (the newest one's ordinal). */
  total: number;
  /** Newest first. */
  rows: AccountListRow[];
}

export interface HotReads {
  /**
   * The page of `limit` accounts that skips the newest `skip`, and the total, in one statement:
   * one snapshot, so the page and its count always agree.
   */
  accountPage(businessId: string, skip: number, limit: number): Promise<AccountPage>;
}

// Ordinals are dense (1..account_count), so the page is the ordinal range
// (count - skip - limit, count - skip]: an index range on (business_id, ordinal) at any depth.
// The outer join keeps the count when the page is past the end. PostgreSQL gets the range as a
// lateral subquery with its LIMIT, so it plans a 10-row backward index scan rather than a
// bitmap scan and a sort; SQLite, which has no LATERAL, searches the same index range.
const PAGE_COLUMNS = `a.account_number, a.account_name, a.email, a.kind, a.expires_at, a.created_at,
       a.ordinal, a.deactivated_at`;
export const ACCOUNT_PAGE = {
  sqlite: `
select b.account_count as total, ${PAGE_COLUMNS}
from businesses b
left join accounts a
  on a.business_id = b.id and a.ordinal > b.account_count - $2 - $3 and a.ordinal <= b.account_count - $2
where b.id = $1
order by a.ordinal desc`,
  postgres: `
select b.account_count as total, ${PAGE_COLUMNS}
from businesses b
left join lateral (
  select * from accounts
  where business_id = $1 and ordinal > b.account_count - $2::bigint - $3::bigint
    and ordinal <= b.account_count - $2::bigint
  order by ordinal desc
  limit $3::bigint
) a on true
where b.id = $1`,
};

type PageRow = { total: number } & { [K in keyof AccountListRow]: AccountListRow[K] | null };

function toPage(rows: PageRow[]): AccountPage {
  const total = Number(rows[0]?.total ?? 0);
  const accounts: AccountListRow[] = [];
  for (const row of rows) {
    if (row.account_number === null) continue;
    accounts.push({
      account_number: row.account_number,
      account_name: row.account_name as string,
      email: row.email as string,
      kind: row.kind as AccountListRow["kind"],
      expires_at: row.expires_at,
      created_at: row.created_at as string,
      ordinal: Number(row.ordinal),
      deactivated_at: row.deactivated_at,
    });
  }
  // Newest first (the lateral join's rows come in its order; no second sort in the database).
  accounts.sort((x, y) => y.ordinal - x.ordinal);
  return { total, rows: accounts };
}

/** PostgreSQL's $1, $2... as SQLite named parameters @p1, @p2... (better-sqlite3 takes no ?NNN). */
export const forSqlite = (text: string) => text.replace(/\$(\d+)/g, "@p$1");

/** Runs a read where it may run: at once on a reader's own connection, or in turn on a shared one. */
type ReadTurn = <T>(read: () => T) => Promise<T>;
const atOnce: ReadTurn = async (read) => read();

/**
 * SQLite: the statements are prepared on `reader` on first use (after migration). `turn` says
 * when they may run: at once on a connection of their own; in turn on the writer's connection,
 * where a read between a transaction's statements would see its uncommitted writes.
 */
export function sqliteHotReads(reader: SqliteDatabase.Database, turn: ReadTurn = atOnce): HotReads {
  let page: SqliteDatabase.Statement<[Record<string, unknown>], PageRow> | undefined;
  return {
    accountPage(businessId, skip, limit) {
      return turn(() => {
        page ??= reader.prepare(forSqlite(ACCOUNT_PAGE.sqlite));
        return toPage(page.all({ p1: businessId, p2: skip, p3: limit }));
      });
    },
  };
}

/** PostgreSQL: named statements, parsed and planned once per pooled connection. */
export function postgresHotReads(pool: pg.Pool): HotReads {
  return {
    async accountPage(businessId, skip, limit) {
      const result = await pool.query<PageRow>({
        name: "vas_account_page",
        text: ACCOUNT_PAGE.postgres,
        values: [businessId, skip, limit],
      });
      return toPage(result.rows);
    },
  };
}
