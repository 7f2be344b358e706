import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { DatabaseLocation } from "../../src/config/load.js";
import { openStorage, type Storage } from "../../src/storage/database.js";
import { migrate } from "../../src/storage/migrate.js";
import { postgresStores } from "../../src/storage/postgres/stores.js";
import { sqliteStores } from "../../src/storage/sqlite/stores.js";
import type { Stores } from "../../src/storage/stores.js";
import { PGBOUNCER_AVAILABLE, pgbouncerPort } from "./pgbouncer.js";

export type TestDialect = "sqlite" | "postgres";
/** Where a suite's database is: a dialect, or PostgreSQL behind PgBouncer in transaction mode. */
export type TestDatabaseKind = TestDialect | "pgbouncer";

/** An administrative connection to a PostgreSQL server on which throwaway databases are created. */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const postgres = await postgresAnswers();
if (!postgres && process.env.CI) {
  throw new Error(
    `CI runs every suite on PostgreSQL too, but ${new URL(POSTGRES_ADMIN_URL).host} does not answer`,
  );
}

/** The databases every storage and HTTP suite runs against: SQLite always, PostgreSQL when it answers (always in CI). */
export const DIALECTS: TestDialect[] = postgres ? ["sqlite", "postgres"] : ["sqlite"];
export const POSTGRES_AVAILABLE = postgres;

/**
 * The HTTP, collections and concurrency suites run once more with PostgreSQL behind PgBouncer in
 * transaction mode (pgbouncer.ts), as production runs many processes.
 */
export const DATABASE_KINDS: TestDatabaseKind[] =
  postgres && PGBOUNCER_AVAILABLE ? [...DIALECTS, "pgbouncer"] : DIALECTS;

/** URL of another database on the admin server. */
export function postgresUrl(database: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The DATABASE_URL a server process is given for a location. */
export function databaseUrl(location: DatabaseLocation): string {
  return location.dialect === "sqlite" ? `sqlite:${location.file}` : location.url;
}

export interface TestDatabase {
  location: DatabaseLocation;
  drop(): Promise<void>;
}

/**
 * A new, empty database: a file in `dir` for SQLite, a throwaway database for PostgreSQL (reached
 * through PgBouncer for "pgbouncer"; it is created and dropped directly).
 */
export async function createTestDatabase(kind: TestDatabaseKind, dir: string): Promise<TestDatabase> {
  if (kind === "sqlite") {
    return { location: { dialect: "sqlite", file: path.join(dir, "vas.db") }, drop: async () => {} };
  }
  const name = `vas_test_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`create database "${name}"`));
  const url = new URL(postgresUrl(name));
  if (kind === "pgbouncer") url.port = String(await pgbouncerPort(new URL(POSTGRES_ADMIN_URL)));
  return {
    location: { dialect: "postgres", url: url.toString() },
    drop: () =>
      admin((client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => {}),
  };
}

/** The hot path's stores for an open database, as compose/ picks them (for suites below the services). */
export const storesOf = (storage: Storage): Stores =>
  storage.dialect === "sqlite" ? sqliteStores(storage) : postgresStores(storage);

/** An open, migrated storage on a new database of `kind`, and what removes it all. */
export async function migratedStorage(
  kind: TestDatabaseKind,
): Promise<{ storage: Storage; close(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-storage-"));
  const database = await createTestDatabase(kind, dir);
  const storage = openStorage(database.location);
  await migrate(storage);
  return {
    storage,
    async close() {
      await storage.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
