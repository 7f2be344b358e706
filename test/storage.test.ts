import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CompiledQuery, sql } from "kysely";
import pg from "pg";
import { seedAccounts } from "../bench/seed.js";
import { openServices } from "../src/compose/services.js";
import { parseDatabaseUrl } from "../src/config/load.js";
import { advanceCounter } from "../src/storage/counter-repository.js";
import { openStorage } from "../src/storage/database.js";
import { isStorageUnavailable, isUniqueViolation } from "../src/storage/errors.js";
import { SQLITE_ACCOUNT_PAGE } from "../src/storage/hot-reads.js";
import { MIGRATION_NAMES, migrate } from "../src/storage/migrate.js";
import { PERMANENT_LOOKUP as POSTGRES_PERMANENT_LOOKUP } from "../src/storage/postgres/account-writes.js";
import { getOrInsertSetting } from "../src/storage/settings-repository.js";
import { PERMANENT_LOOKUP as SQLITE_PERMANENT_LOOKUP } from "../src/storage/sqlite/account-writes.js";
import { writeTransaction } from "../src/storage/transactions.js";
import {
  createTestDatabase,
  DATABASE_KINDS,
  DIALECTS,
  postgresUrl,
  type TestDatabase,
} from "./helpers/databases.js";
import { testConfig } from "./helpers/harness.js";

const execFileAsync = promisify(execFile);
const MIGRATE_SCRIPT = fileURLToPath(new URL("./fixtures/migrate.ts", import.meta.url));

for (const dialect of DIALECTS) {
  describe(`storage on ${dialect}`, () => {
    let dir: string;
    let database: TestDatabase;
    // One master key for the services the tests open on this database.
    const masterKey = randomBytes(32);
    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "vas-storage-"));
      database = await createTestDatabase(dialect, dir);
    });
    after(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("processes starting together migrate exactly once", async () => {
      const url =
        database.location.dialect === "sqlite" ? `sqlite:${database.location.file}` : database.location.url;
      const runs = await Promise.all(
        Array.from({ length: 4 }, () =>
          execFileAsync(process.execPath, ["--import", "tsx", MIGRATE_SCRIPT, url]),
        ),
      );
      const applied = runs.flatMap((run) => JSON.parse(run.stdout) as string[]);
      assert.deepEqual(
        applied,
        MIGRATION_NAMES,
        "one process ran each migration, the others found them done",
      );
      const storage = openStorage(database.location);
      try {
        const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(storage.db);
        assert.deepEqual(
          rows.rows.map((r) => r.name),
          MIGRATION_NAMES,
        );
        assert.deepEqual(await migrate(storage), [], "migrating again is a no-op");
      } finally {
        await storage.close();
      }
    });

    test("counters hand out disjoint ranges to concurrent callers on separate connections", async () => {
      const storages = Array.from({ length: 4 }, () => openStorage(database.location));
      try {
        const ends = await Promise.all(
          Array.from({ length: 80 }, (_, i) => advanceCounter(storages[i % 4]!.db, "test.counter", 5)),
        );
        assert.equal(new Set(ends).size, 80);
        assert.deepEqual(
          [...ends].sort((a, b) => a - b),
          Array.from({ length: 80 }, (_, i) => (i + 1) * 5),
        );
      } finally {
        await Promise.all(storages.map((storage) => storage.close()));
      }
    });

    test("the first writer of a setting wins, everywhere", async () => {
      const storages = Array.from({ length: 4 }, () => openStorage(database.location));
      try {
        const values = await Promise.all(
          storages.map((storage, i) =>
            getOrInsertSetting(storage.db, "test.setting", `value-${i}`, new Date().toISOString()),
          ),
        );
        assert.equal(new Set(values).size, 1);
      } finally {
        await Promise.all(storages.map((storage) => storage.close()));
      }
    });

    test("a statement of a transaction over DATABASE_STATEMENT_TIMEOUT_MS is cut off and reads as 'unavailable' (503)", {
      skip: dialect !== "postgres" && "statement timeouts are a PostgreSQL setting",
    }, async () => {
      const storage = openStorage(database.location, { statementTimeoutMs: 50 });
      try {
        // SET LOCAL, with the transaction's BEGIN: no session setting a pooler could hand on.
        const failure = await writeTransaction(storage, (trx) => sql`select pg_sleep(2)`.execute(trx)).catch(
          (error: unknown) => error,
        );
        assert.ok(failure instanceof Error, "the statement was cancelled");
        assert.equal((failure as { code?: string }).code, "57014");
        assert.ok(isStorageUnavailable(failure));
      } finally {
        await storage.close();
      }
    });

    test("a list page and its count are one statement: an index range on (business_id, ordinal) at any depth", async () => {
      const services = await openServices(testConfig(database.location, masterKey));
      try {
        const business = await services.businesses.createBusiness("Plan Ltd", "completed");
        const other = await services.businesses.createBusiness("Other Ltd", "completed");
        await seedAccounts(services, business.business.id, 20_000);
        await seedAccounts(services, other.business.id, 5_000);
        await sql`analyze`.execute(services.storage.db);
        for (const skip of [0, 10_000, 19_990]) {
          if (dialect === "sqlite") {
            // Through the query builder, which takes positional parameters in order of appearance.
            const values = [business.business.id, skip, 10];
            const order = [...SQLITE_ACCOUNT_PAGE.matchAll(/\$(\d)/g)].map((m) => Number(m[1]) - 1);
            const plan = await services.storage.db.executeQuery(
              CompiledQuery.raw(
                `explain query plan ${SQLITE_ACCOUNT_PAGE.replace(/\$\d/g, "?")}`,
                order.map((i) => values[i]),
              ),
            );
            const described = JSON.stringify(plan.rows);
            assert.match(
              described,
              /SEARCH a USING INDEX (sqlite_autoindex_accounts_\d|accounts_business_ordinal_key) \(business_id=\? AND ordinal>\? AND ordinal<\?\)/,
              described,
            );
          } else {
            // The plan inside the function (migration 0018), as the server keeps it.
            const described = await plansInside(
              database.location.dialect === "postgres" ? database.location.url : "",
              "select * from vas_account_page($1, $2, $3)",
              [business.business.id, skip, 10],
            );
            assert.match(described, /Index Scan Backward using accounts_business_ordinal_key/, described);
            assert.doesNotMatch(described, /Seq Scan on accounts|Sort/, described);
          }
          const page = await services.storage.hot.accountPage(business.business.id, skip, 10);
          assert.equal(page.total, 20_000);
          // Newest first: the seed's customer i has ordinal i + 1.
          assert.deepEqual(
            page.rows.map((row) => row.email),
            Array.from({ length: 10 }, (_, i) => `customer${20_000 - skip - i - 1}@bench.example.com`),
          );
        }
        const past = await services.storage.hot.accountPage(business.business.id, 20_000, 10);
        assert.deepEqual(past, { total: 20_000, rows: [] }, "past the end: no rows, and still the count");
      } finally {
        await services.close();
      }
    });

    test("the permanent account of an email is found by an index seek on the business and the email", async () => {
      const services = await openServices(testConfig(database.location, masterKey));
      try {
        const business = await services.businesses.createBusiness("Plan Ltd", "completed");
        await seedAccounts(services, business.business.id, 2_000);
        await sql`analyze`.execute(services.storage.db);
        const lookup = dialect === "sqlite" ? SQLITE_PERMANENT_LOOKUP : POSTGRES_PERMANENT_LOOKUP.text;
        const explain = dialect === "sqlite" ? "explain query plan " : "explain ";
        const plan = await services.storage.db.executeQuery(
          CompiledQuery.raw(explain + lookup, [business.business.id, "x@example.com"]),
        );
        const text = JSON.stringify(plan.rows);
        // SQLite takes the partial unique index (its predicate is a literal in the statement);
        // PostgreSQL may take it, the (business_id, email) index the dashboard's search uses, or
        // the email index the console's search uses: each seeks the email's rows, never scans.
        assert.match(
          text,
          /accounts_one_permanent_per_email|accounts_business_email_idx|accounts_email_idx/,
          text,
        );
        if (dialect === "sqlite") assert.match(text, /accounts_one_permanent_per_email/, text);
        assert.doesNotMatch(text, /Seq Scan|SCAN accounts/, text);
        // The predicate the index is defined on is in the statement itself, not bound at run time.
        assert.match(lookup, /kind = 'permanent'/);
      } finally {
        await services.close();
      }
    });

    test("unique violations are recognised, and a failed write transaction leaves nothing", async () => {
      const storage = openStorage(database.location);
      try {
        await getOrInsertSetting(storage.db, "test.unique", "a", "2026-01-01T00:00:00.000Z");
        const failure = await writeTransaction(storage, async (trx) => {
          await trx.insertInto("counters").values({ name: "test.rolled-back", value: 1 }).execute();
          await trx
            .insertInto("settings")
            .values({ name: "test.unique", value: "b", created_at: "x" })
            .execute();
        }).catch((error: unknown) => error);
        assert.ok(isUniqueViolation(failure), String(failure));
        assert.ok(!isStorageUnavailable(failure));
        const leftover = await storage.db
          .selectFrom("counters")
          .select("name")
          .where("name", "=", "test.rolled-back")
          .execute();
        assert.deepEqual(leftover, []);
      } finally {
        await storage.close();
      }
    });
  });
}

describe("migrations behind PgBouncer in transaction mode", {
  skip: !DATABASE_KINDS.includes("pgbouncer") && "PgBouncer or PostgreSQL is not here",
}, () => {
  test("processes starting together migrate once, again and again, and leave no lock held", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "vas-pooled-migrations-"));
    const database = await createTestDatabase("pgbouncer", dir);
    const url = database.location.dialect === "postgres" ? database.location.url : "";
    try {
      // Kysely's session-level lock was left held on a pooled connection in 5 of 11 such starts,
      // and every later start then waited on it: four rounds of three. Each start has a pool of
      // its own through PgBouncer, as a process would (the lock lives on PgBouncer's server
      // connection, whichever client process it served), and closes it when done.
      const applied: string[] = [];
      const location = parseDatabaseUrl(url);
      assert.ok(location);
      for (let round = 0; round < 4; round++) {
        const runs = await Promise.all(
          Array.from({ length: 3 }, async () => {
            const storage = openStorage(location, { poolSize: 2 });
            try {
              return await migrate(storage);
            } finally {
              await storage.close();
            }
          }),
        );
        applied.push(...runs.flat());
      }
      assert.deepEqual(applied, MIGRATION_NAMES, "each migration applied once, in the first round");
      const direct = openStorage({ dialect: "postgres", url: postgresUrl(new URL(url).pathname.slice(1)) });
      try {
        const held = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_locks
             where locktype = 'advisory'
               and database = (select oid from pg_database where datname = current_database())`.execute(
          direct.db,
        );
        assert.equal(held.rows[0]?.n, 0, "no advisory lock outlives its transaction");
      } finally {
        await direct.close();
      }
    } finally {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The plans PostgreSQL ran inside a function call (auto_explain, nested statements), on the
 * call's 7th run: by then PL/pgSQL may have traded its custom plans for the generic one it keeps.
 */
async function plansInside(url: string, call: string, values: unknown[]): Promise<string> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    let notices: string[] = [];
    client.on("notice", (notice) => notices.push(notice.message ?? ""));
    await client.query("load 'auto_explain'");
    await client.query(
      "set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; " +
        "set client_min_messages = log",
    );
    for (let run = 1; run <= 7; run++) {
      notices = [];
      await client.query(call, values);
    }
    return notices.join("\n");
  } finally {
    await client.end();
  }
}
