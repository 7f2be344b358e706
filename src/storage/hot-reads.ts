import type SqliteDatabase from "better-sqlite3";
import type pg from "pg";
import type { VerificationStatus } from "../core/business-states.js";
import type { KeyCredential } from "../core/key-credential.js";
import type { ListedAccount } from "../core/listed-account.js";
import type { AccountRow } from "./schema.js";

// The reads on the request path, beside the query builder rather than through it (issue 12):
// Kysely builds and compiles a query on every call, which cost more than the read itself. On
// SQLite they are statements prepared once; on PostgreSQL, functions whose plans the server keeps.

/** One page of a business's accounts and the count it was cut from, read together. */
export interface AccountPage {
  /** Accounts the business has ever created (the newest one's ordinal). */
  total: number;
  /** Newest first. */
  rows: ListedAccount[];
}

export interface HotReads {
  /**
   * The page of `limit` accounts that skips the newest `skip`, and the total, in one statement:
   * one snapshot, so the page and its count always agree.
   */
  accountPage(businessId: string, skip: number, limit: number): Promise<AccountPage>;
  /** Whether this number (current or retired) was issued to one of the business's accounts. */
  issuedTo(businessId: string, accountNumber: string): Promise<boolean>;
  /** An API key's record, with its business, by the key's hash (authentication). */
  credential(keyHash: string): Promise<KeyCredential | undefined>;
  /** A counter's value, 0 when it was never advanced (the credentials epoch). */
  counter(name: string): Promise<number>;
  /** A business's verification status as committed now, undefined when there is no such business. */
  verificationStatus(businessId: string): Promise<VerificationStatus | undefined>;
}

// SQLite's statements (PostgreSQL's are the functions of migration 0018).
const CREDENTIAL = `select k.id as "keyId", k.status as "keyStatus", k.secret_ciphertext as "secretCiphertext",
  k.min_signature_version as "minSignatureVersion", b.id as "businessId", b.name as "businessName",
  b.verification_status as "verificationStatus"
  from api_keys k join businesses b on b.id = k.business_id
  where k.key_hash = $1`;
const COUNTER = "select value from counters where name = $1";
const VERIFICATION_STATUS = "select verification_status as status from businesses where id = $1";
const counterValue = (row: { value: number | null } | undefined) => Number(row?.value ?? 0);

const ISSUED_TO = "select 1 as issued from account_numbers where account_number = $1 and business_id = $2";

// Ordinals are dense (1..account_count), so the page is the ordinal range
// (count - skip - limit, count - skip]: an index range on (business_id, ordinal) at any depth.
// The outer join keeps the count when the page is past the end. (PostgreSQL's is the function
// vas_account_page, migration 0018: the range as a lateral subquery with its LIMIT.)
const PAGE_COLUMNS = `a.account_number, a.account_name, a.email, a.kind, a.expires_at, a.created_at,
       a.ordinal, a.deactivated_at`;
export const SQLITE_ACCOUNT_PAGE = `
select b.account_count as total, ${PAGE_COLUMNS}
from businesses b
left join accounts a
  on a.business_id = b.id and a.ordinal > b.account_count - $2 - $3 and a.ordinal <= b.account_count - $2
where b.id = $1
order by a.ordinal desc`;

type PageColumns = Pick<
  AccountRow,
  | "account_number"
  | "account_name"
  | "email"
  | "kind"
  | "expires_at"
  | "created_at"
  | "ordinal"
  | "deactivated_at"
>;
type PageRow = { total: number } & { [K in keyof PageColumns]: PageColumns[K] | null };

function toPage(rows: PageRow[]): AccountPage {
  const total = Number(rows[0]?.total ?? 0);
  // Newest first (the lateral join's rows come in its order; no second sort in the database).
  const found = rows.filter((row) => row.account_number !== null);
  found.sort((x, y) => Number(y.ordinal) - Number(x.ordinal));
  const accounts = found.map(
    (row): ListedAccount => ({
      accountNumber: row.account_number as string,
      accountName: row.account_name as string,
      email: row.email as string,
      kind: row.kind as ListedAccount["kind"],
      expiresAt: row.expires_at,
      createdAt: row.created_at as string,
      deactivatedAt: row.deactivated_at,
    }),
  );
  return { total, rows: accounts };
}

/** Numbered parameters ($1, $2...) as SQLite named ones (@p1, @p2...): better-sqlite3 takes no ?NNN. */
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
  let issued: SqliteDatabase.Statement<[Record<string, unknown>], unknown> | undefined;
  let credential: SqliteDatabase.Statement<[Record<string, unknown>], KeyCredential> | undefined;
  let counter: SqliteDatabase.Statement<[Record<string, unknown>], { value: number }> | undefined;
  let status: SqliteDatabase.Statement<[Record<string, unknown>], { status: VerificationStatus }> | undefined;
  return {
    accountPage(businessId, skip, limit) {
      return turn(() => {
        page ??= reader.prepare(forSqlite(SQLITE_ACCOUNT_PAGE));
        return toPage(page.all({ p1: businessId, p2: skip, p3: limit }));
      });
    },
    issuedTo(businessId, accountNumber) {
      return turn(() => {
        issued ??= reader.prepare(forSqlite(ISSUED_TO));
        return issued.get({ p1: accountNumber, p2: businessId }) !== undefined;
      });
    },
    credential(keyHash) {
      return turn(() => {
        credential ??= reader.prepare(forSqlite(CREDENTIAL));
        return credential.get({ p1: keyHash });
      });
    },
    counter(name) {
      return turn(() => {
        counter ??= reader.prepare(forSqlite(COUNTER));
        return counterValue(counter.get({ p1: name }));
      });
    },
    verificationStatus(businessId) {
      return turn(() => {
        status ??= reader.prepare(forSqlite(VERIFICATION_STATUS));
        return status.get({ p1: businessId })?.status;
      });
    },
  };
}

/**
 * PostgreSQL: each read is a call of a PL/pgSQL function (migration 0018-hot-read-functions),
 * whose plan the server keeps per connection. Not a named statement: that lives on its server
 * connection, and behind a transaction pooler (PgBouncer) the next transaction may get another.
 */
export function postgresHotReads(pool: pg.Pool): HotReads {
  return {
    async accountPage(businessId, skip, limit) {
      const result = await pool.query<PageRow>({
        text: "select * from vas_account_page($1, $2, $3)",
        values: [businessId, skip, limit],
      });
      return toPage(result.rows);
    },
    async issuedTo(businessId, accountNumber) {
      const result = await pool.query<{ issued: boolean }>({
        text: "select vas_issued_to($1, $2) as issued",
        values: [businessId, accountNumber],
      });
      return result.rows[0]?.issued === true;
    },
    async credential(keyHash) {
      const result = await pool.query<KeyCredential>({
        text: "select * from vas_credential($1)",
        values: [keyHash],
      });
      return result.rows[0];
    },
    async counter(name) {
      const result = await pool.query<{ value: number | null }>({
        text: "select vas_counter($1) as value",
        values: [name],
      });
      return counterValue(result.rows[0]);
    },
    async verificationStatus(businessId) {
      const result = await pool.query<{ status: VerificationStatus | null }>({
        text: "select vas_verification_status($1) as status",
        values: [businessId],
      });
      return result.rows[0]?.status ?? undefined;
    },
  };
}
