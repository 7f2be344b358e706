import pino from "pino";
import { buildApp } from "./app.js";
import { resolveMasterKey } from "./businesses/master-key.js";
import { ConfigError, describeDatabase, loadConfig } from "./config.js";
import { connectRedis } from "./http/rate-limit.js";
import { MasterKeyMismatchError, openServices } from "./services.js";
import { isStorageUnavailable } from "./storage/errors.js";

class StartupError extends Error {}

async function main(): Promise<void> {
  const config = loadConfig();
  const master = resolveMasterKey(config.masterKey, config.dataDir);
  const services = await openServices({
    database: config.database,
    storageOptions: {
      poolSize: config.databasePoolSize,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      ssl: config.databaseSsl,
      sqliteSynchronous: config.sqliteSynchronous,
    },
    masterKey: master.key,
    previousMasterKeys: config.previousMasterKeys,
    institutionCode: config.nubanInstitutionCode,
    requestLeaseMs: config.requestTimeoutMs * 2,
    authCacheTtlMs: config.authCacheTtlMs,
  }).catch((error: unknown) => {
    if (!isStorageUnavailable(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`Cannot reach the database at ${describeDatabase(config.database)}: ${reason}`);
  });
  // Log lines are buffered (up to 4 KiB, at most a quarter of a second) and written in batches
  // instead of one write per line: a measurable share of a request's cost. The buffer is
  // flushed on exit, whatever the cause.
  const logDestination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => logDestination.flush(), 250).unref();
  process.on("exit", () => {
    try {
      logDestination.flushSync();
    } catch {
      // nothing left to flush to
    }
  });
  const redisErrors: Error[] = [];
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, (error) => redisErrors.push(error))
    : undefined;
  const app = buildApp({
    authenticator: services.authenticator,
    accounts: services.accounts,
    requestRecords: services.requestRecords,
    rateLimits: {
      perKeyPerMinute: config.rateLimitPerKeyPerMinute,
      perIpPerMinute: config.rateLimitPerIpPerMinute,
      redis,
      namespace: `${config.redisKeyPrefix}rate-limit:`,
    },
    db: services.storage.db,
    bodyLimitBytes: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    trustProxy: config.trustProxy,
    logger: { level: config.logLevel, stream: logDestination },
  });
  const log = app.log;
  if (master.source === "generated") {
    log.warn(
      { file: master.file },
      "No VAS_MASTER_KEY set: generated a new master key in the data directory. Back it up: without it the stored secret keys cannot be read. Set VAS_MASTER_KEY in production.",
    );
  } else if (master.source === "file") {
    log.info(
      { file: master.file },
      "Using the master key from the data directory (VAS_MASTER_KEY is not set)",
    );
  }
  if (services.migrated.length > 0) log.info({ migrations: services.migrated }, "database migrated");
  if (redis) {
    for (const error of redisErrors.splice(0)) log.warn({ err: error }, "Redis is not reachable yet");
    redis.on("error", (error) =>
      log.warn({ err: error }, "Redis error: rate limits are not enforced meanwhile"),
    );
  }
  const stopPruning = services.requestRecords.startPruning(60_000, (error) =>
    log.warn({ err: error }, "could not prune expired request records"),
  );

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, "shutting down: finishing in-flight requests");
    const timer = setTimeout(() => {
      log.error("shutdown timed out; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    stopPruning();
    app
      .close()
      .then(() => services.close())
      // An unreachable Redis cannot say goodbye: drop the connection instead.
      .then(() => redis?.quit().catch(() => redis.disconnect()))
      .then(() => {
        log.info("shut down cleanly");
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error({ err: error }, "error while shutting down");
        process.exit(1);
      });
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));

  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await services.close();
    throw error;
  }
  log.info(
    { address, database: describeDatabase(config.database), institutionCode: config.nubanInstitutionCode },
    "Virtual Account Service ready",
  );
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof MasterKeyMismatchError ||
    error instanceof StartupError
  ) {
    console.error(error.message);
  } else {
    console.error("Failed to start:", error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
