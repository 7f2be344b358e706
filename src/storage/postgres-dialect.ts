import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  PostgresAdapter,
  PostgresDialect,
  type PostgresDialectConfig,
  PostgresDriver,
  type TransactionSettings,
} from "kysely";

// PostgreSQL as production runs it: directly, or behind a transaction pooler (PgBouncer in
// transaction mode), where each transaction may run on another server connection. So nothing
// may outlive a transaction: no session settings (the statement timeout is SET LOCAL), no named
// statements, and no session-level locks (the migration lock is transaction-scoped).

/** What opens a write transaction: BEGIN, and the statement timeout for it alone (one round trip). */
export function postgresBegin(statementTimeoutMs: number | undefined): string {
  return statementTimeoutMs
    ? `begin; set local statement_timeout = ${Math.trunc(statementTimeoutMs)}`
    : "begin";
}

/** Kysely's own migration lock id, taken for the migration's transaction instead of the session. */
const MIGRATION_LOCK_ID = "3853314791062309107";

class BeginningDriver extends PostgresDriver {
  constructor(
    config: PostgresDialectConfig,
    private readonly begin: string,
  ) {
    super(config);
  }

  override async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    if (settings.isolationLevel || settings.accessMode) {
      throw new Error("transactions run at the database's default isolation level and access mode");
    }
    await connection.executeQuery(CompiledQuery.raw(this.begin));
  }
}

/** Kysely's PostgreSQL dialect whose transactions open with `begin` (postgresBegin). */
export class TransactionScopedPostgresDialect extends PostgresDialect {
  constructor(
    private readonly config: PostgresDialectConfig,
    private readonly begin: string,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new BeginningDriver(this.config, this.begin);
  }
}

/** The adapter of the migration handle: the lock is the transaction's (MigratingPostgresDialect). */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}
  override async releaseMigrationLock(): Promise<void> {}
}

/**
 * The handle migrations run on: Kysely migrates in one transaction, and this one's first
 * statement takes the migration lock for that transaction. Kysely's own lock is session-level,
 * taken and released in statements apart from the transaction: behind a transaction pooler it
 * was left held on a server connection, and every later start waited on it. No statement
 * timeout: a migration may take long, and another process starting meanwhile waits for it.
 */
export class MigratingPostgresDialect extends PostgresDialect {
  constructor(private readonly config: PostgresDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new BeginningDriver(this.config, `begin; select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionLockAdapter();
  }
}
