import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import {
  type DialectAdapter,
  Kysely,
  type KyselyConfig,
  type SqliteDatabase as KyselySqliteDatabase,
  type MigrationLockOptions,
  SqliteAdapter,
  SqliteDialect,
  sql,
} from "kysely";
import pg from "pg";
import type { DatabaseLocation } from "../core/database-location.js";
import { startCheckpointer } from "./checkpointer.js";
import type { Executor } from "./executor.js";
import { createPrivateDirectory, makeDatabaseFilePrivate } from "./files.js";
import { GroupCommit } from "./group-commit.js";
import { type HotReads, postgresHotReads, sqliteHotReads } from "./hot-reads.js";
import { completeOnPostgres } from "./postgres/answered.js";
import {
  MigratingPostgresDialect,
  postgresBegin,
  TransactionScopedPostgresDialect,
} from "./postgres-dialect.js";
import type { Database } from "./schema.js";
import { completeOnSqlite } from "./sqlite/complete-records.js";
import { useWal } from "./sqlite/wal.js";
import type { AnswerRecords } from "./unit-of-work.js";

export type Dialect = "sqlite" | "postgres";

/** Where the database is: a SQLite file (or `:memory:`), or a PostgreSQL URL. */
/**
 * An open database: the Kysely instance (cold paths, migrations), the request path's reads, and
 * how to close it; with what each dialect's stores write the hot path through (stores.ts).
 */
export type Storage = SqliteStorage | PostgresStorage;

/** SQLite: the writer's group commit, for the request path's synchronous writes (group-commit.ts). */
export interface SqliteStorage extends OpenDatabase {
  readonly dialect: "sqlite";
  readonly group: GroupCommit;
}

/** PostgreSQL: the pool, for the request path's statements (one round trip each where it can). */
export interface PostgresStorage extends OpenDatabase {
  readonly dialect: "postgres";
  readonly pool: pg.Pool;
}

interface OpenDatabase {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** The request path's reads, on statements prepared once (see hot-reads.ts). */
  readonly hot: HotReads;
  /**
   * What opens a write transaction: SQLite's BEGIN IMMEDIATE (the write lock at once);
   * PostgreSQL's BEGIN with the statement timeout as SET LOCAL, which ends with the transaction,
   * so that a transaction pooler (PgBouncer) may sit between. One round trip either way.
   */
  readonly beginWrite: string;
  /**
   * Completes a request's records with its answer on a query builder's handle (a transaction's,
   * or alone): the dialect's one spelling of it, as its hot path runs it.
   */
  completeRecords(db: Executor, answer: AnswerRecords): Promise<void>;
  /** The handle migrations run on (see migrate.ts): PostgreSQL's takes the migration lock inside their transaction. */
  readonly migrationDb: Kysely<unknown>;
  /** Connections now: PostgreSQL's pool; SQLite's single connection. */
  poolState(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/**
 * Where each statement's duration goes (metrics): a histogram by its kind (the first SQL keyword)
 * and outcome, in seconds, whose `observe` storage calls itself (prom-client's Histogram fits, so
 * no code of another room runs per statement).
 */
export interface QueryObserver {
  observe(labels: { kind: string; outcome: "ok" | "error" }, seconds: number): void;
}

export interface StorageOptions {
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** PostgreSQL statement timeout; 0 disables it. */
  statementTimeoutMs?: number;
  ssl?: "disable" | "require" | "verify-full";
  /** How long SQLite waits for another process's write lock before giving up. */
  busyTimeoutMs?: number;
  /** SQLite commit durability: see sqliteSynchronous in config/load.ts (default normal). */
  sqliteSynchronous?: "normal" | "full";
  /** Told of every statement's duration (metrics). */
  onQuery?: QueryObserver;
}

const STATEMENT_KINDS = new Set([
  "select",
  "insert",
  "update",
  "delete",
  "with",
  "begin",
  "commit",
  "rollback",
]);

/** Kysely's log hook turned into a QueryObserver call. */
function queryLog(observer: QueryObserver | undefined): KyselyConfig["log"] {
  if (!observer) return undefined;
  return (event) => {
    const first = /^\s*(\w+)/.exec(event.query.sql)?.[1]?.toLowerCase() ?? "other";
    observer.observe(
      {
        kind: STATEMENT_KINDS.has(first) ? first : "other",
        outcome: event.level === "error" ? "error" : "ok",
      },
      event.queryDurationMillis / 1000,
    );
  };
}

/** Opens the database named by the location. Does not migrate (see migrate.ts). */
export function openStorage(
  location: { dialect: "sqlite"; file: string },
  options?: StorageOptions,
): SqliteStorage;
export function openStorage(
  location: { dialect: "postgres"; url: string },
  options?: StorageOptions,
): PostgresStorage;
export function openStorage(location: DatabaseLocation, options?: StorageOptions): Storage;
export function openStorage(location: DatabaseLocation, options: StorageOptions = {}): Storage {
  return location.dialect === "sqlite"
    ? openSqlite(location.file, options)
    : openPostgres(location.url, options);
}

function openSqlite(file: string, options: StorageOptions): SqliteStorage {
  // The file holds names, emails and stored answers: the service's user alone may read it.
  if (file !== ":memory:") {
    createPrivateDirectory(path.dirname(file));
    makeDatabaseFilePrivate(file);
  }
  const connection = new SqliteDatabase(file);
  // WAL lets readers run beside the writer; the busy timeout makes a second process (the CLI,
  // another server) wait for the write lock instead of failing. In WAL mode NORMAL never
  // corrupts the database and loses nothing when the process crashes; only a power cut or OS
  // crash can roll back the last commits. FULL also survives those, at one fsync per commit.
  connection.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  useWal(connection, options.busyTimeoutMs ?? 5000);
  connection.pragma(`synchronous = ${options.sqliteSynchronous === "full" ? "FULL" : "NORMAL"}`);
  connection.pragma("foreign_keys = ON");
  connection.pragma(`cache_size = ${SQLITE_CACHE_SIZE}`);
  const db = new Kysely<Database>({
    dialect: new LockingSqliteDialect({ database: cachingStatements(connection) }),
    log: queryLog(options.onQuery),
  });
  // The hot reads get a connection of their own: in WAL mode it sees only committed data and
  // never queues behind the writer's transaction. A :memory: database is private to its one
  // connection, so there the reads share it, taking turns with the query builder's work.
  const reader = file === ":memory:" ? undefined : new SqliteDatabase(file);
  // Checkpoints in a worker thread, not inside a request's commit (checkpointer.ts).
  const checkpointer = file === ":memory:" ? undefined : startCheckpointer(file);
  if (checkpointer) connection.pragma(`wal_autocheckpoint = ${checkpointer.safetyPages}`);
  if (reader) {
    reader.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    reader.pragma(`cache_size = ${SQLITE_CACHE_SIZE}`);
    reader.pragma("query_only = ON");
  }
  const hot = reader
    ? sqliteHotReads(reader)
    : sqliteHotReads(connection, (read) => db.connection().execute(async () => read()));
  // A group's turn comes when the query builder holds no transaction open on the connection.
  const group = new GroupCommit(connection, (run) => db.connection().execute(async () => run()));
  return {
    db,
    dialect: "sqlite",
    beginWrite: "begin immediate",
    completeRecords: completeOnSqlite,
    migrationDb: db as Kysely<unknown>,
    hot,
    group,
    poolState: () => ({ total: 1, idle: 1, waiting: 0 }),
    close: async () => {
      await checkpointer?.close();
      await db.destroy();
      reader?.close();
    },
  };
}

/** Each SQLite connection's page cache, in KiB when negative (measured: see docs/performance.md). */
const SQLITE_CACHE_SIZE = -8192;

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query afresh, and compiling SQL was the largest cost of a request in
 * profiles. The service runs a few dozen distinct statements, so each is compiled once and
 * reused (better-sqlite3 statements are reusable; SQLite re-prepares them after a schema change).
 */
function cachingStatements(connection: SqliteDatabase.Database): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = connection.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * Kysely's SQLite adapter migrates outside a transaction and takes no lock: it assumes one
 * process. SQLite does support transactional DDL, so migrate in a transaction whose first
 * statement writes the lock row: that takes SQLite's write lock (waiting out the busy timeout),
 * and a second process reads the migration state only after the first has committed.
 */
class MigrationLockingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  override async acquireMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`update ${sql.table(options.lockTable)} set is_locked = 1 where id = ${options.lockRowId}`.execute(
      db,
    );
  }
}

class LockingSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new MigrationLockingSqliteAdapter();
  }
}

const INT8_OID = 20;

/**
 * Money is `bigint` (int8) on PostgreSQL, which node-postgres hands over as text. Kobo amounts
 * are integers far below 2^53, so they come back as numbers; one that is not is refused loudly
 * rather than rounded.
 */
const typeParser = ((oid: number, format?: "text" | "binary") => {
  if (oid !== INT8_OID || format === "binary") return pg.types.getTypeParser(oid, format as "text");
  return (text: string) => {
    const value = Number(text);
    if (!Number.isSafeInteger(value))
      throw new RangeError(`int8 ${text} is beyond 2^53: refusing to round it`);
    return value;
  };
}) as typeof pg.types.getTypeParser;

function openPostgres(url: string, options: StorageOptions): PostgresStorage {
  const ssl = options.ssl ?? "disable";
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    types: { getTypeParser: typeParser },
    ...(ssl === "disable" ? {} : { ssl: { rejectUnauthorized: ssl === "verify-full" } }),
    connectionTimeoutMillis: 5000,
  });
  // A client that loses its server emits 'error' (on the pool when idle, on itself when checked
  // out); without a listener that would crash the process. The query in flight still fails
  // through its own promise, and the pool opens a fresh connection for the next one.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  // No state outlives a transaction (no named statements, no session settings or locks): behind
  // a transaction pooler the next transaction may run on another server connection.
  const beginWrite = postgresBegin(options.statementTimeoutMs);
  const db = new Kysely<Database>({
    dialect: new TransactionScopedPostgresDialect({ pool }, beginWrite),
    log: queryLog(options.onQuery),
  });
  return {
    db,
    dialect: "postgres",
    beginWrite,
    completeRecords: completeOnPostgres,
    migrationDb: new Kysely<unknown>({ dialect: new MigratingPostgresDialect({ pool }) }),
    hot: postgresHotReads(pool),
    pool,
    poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}
