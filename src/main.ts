import closeWithGrace from "close-with-grace";
import pino from "pino";
import { composeServer } from "./compose/server.js";
import { MasterKeyMismatchError } from "./compose/services.js";
import { ConfigError, describeDatabase, loadConfig } from "./config/load.js";
import { isStorageUnavailable } from "./storage/errors.js";

// The process: read the configuration, compose the server, listen, and close gracefully on a
// signal. Run it as `node dist/main.js` under a supervisor (see docs/deploy.md): npm does not
// pass signals on to it.

class StartupError extends Error {}

async function main(): Promise<void> {
  const config = loadConfig();
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
  const server = await composeServer(config, {
    logger: { level: config.logLevel, stream: logDestination },
  }).catch((error: unknown) => {
    if (!isStorageUnavailable(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`Cannot reach the database at ${describeDatabase(config.database)}: ${reason}`);
  });
  const log = server.app.log;
  const { masterKey, migrated } = server.services;
  if (masterKey.source === "generated") {
    log.warn(
      { file: masterKey.file },
      "No VAS_MASTER_KEY set: generated a new master key in the data directory. Back it up: without it the stored secret keys cannot be read. Set VAS_MASTER_KEY in production.",
    );
  } else if (masterKey.source === "file") {
    log.info(
      { file: masterKey.file },
      "Using the master key from the data directory (VAS_MASTER_KEY is not set)",
    );
  }
  if (migrated.length > 0) log.info({ migrations: migrated }, "database migrated");
  // A new installation charges nothing until the operator says so (docs/ledger.md, Charges): say so.
  const charges = await server.services.charges.schedule();
  if (charges.vatBasisPoints === 0 && !charges.stampDutyOnPayouts && !charges.stampDutyOnCredits) {
    log.warn(
      "No VAT or stamp duty is collected: the charges schedule is off, as a new installation starts. `vas charges set --defaults` collects the law's (VAT 7.5 % of fees, NGN 50 stamp duty on payouts of NGN 10,000 and more); see docs/ledger.md, Charges.",
    );
  }
  // Without SMTP_URL (development), mail is written to files: say where, so its links can be followed.
  if (config.mail.transport.kind === "files") {
    log.info(
      { directory: config.mail.transport.dir },
      "No SMTP_URL set: mail (confirmations, invitations, recovery links) is written as .eml files here",
    );
  } else log.info({ mail: server.services.mailer.destination }, "mail is sent over SMTP");

  // SIGTERM, SIGINT (and an uncaught error): stop taking connections, finish the requests and
  // background runs in flight, close the database; past SHUTDOWN_TIMEOUT_MS, or on a second
  // signal, exit 1 at once.
  closeWithGrace(
    {
      delay: config.shutdownTimeoutMs,
      logger: { error: (message: unknown) => log.error({ err: message }, "error while shutting down") },
      onTimeout: () => log.error("shutdown timed out; exiting"),
      onSecondError: (error) => log.error({ err: error }, "another error while shutting down; exiting"),
    },
    async ({ signal, err }) => {
      if (err) log.error({ err }, "uncaught error: shutting down");
      else log.info({ signal }, "shutting down: finishing in-flight requests");
      try {
        await server.close();
      } catch (error) {
        log.error({ err: error }, "error while shutting down");
        throw error; // exit 1
      }
      log.info("shut down cleanly"); // exit 0 (1 after an uncaught error)
    },
  );

  let addresses: { address: string; metricsAddress?: string };
  try {
    addresses = await server.listen();
  } catch (error) {
    await server.close().catch(() => {});
    throw error;
  }
  // PUBLIC_URL, or the address it listens at (PORT=0 picks one only now).
  const reachedAt = config.port === 0 ? addresses.address : config.mail.publicUrl;
  log.info(
    {
      ...addresses,
      // Where a person goes first: the dashboard, the operator console, the API's reference.
      dashboard: `${reachedAt}/dashboard`,
      console: `${reachedAt}/admin`,
      docs: `${reachedAt}/docs`,
      database: describeDatabase(config.database),
      institutionCode: config.nubanInstitutionCode,
      jobs: server.jobs.names(),
    },
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
