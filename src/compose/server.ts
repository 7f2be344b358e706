import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { buildApp } from "../app.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config/load.js";
import { HealthMonitor } from "../http/health.js";
import { metricsRoute } from "../http/metrics.js";
import { connectRedis } from "../http/rate-limit.js";
import { JobRunner } from "../jobs/job-runner.js";
import { recordCheckpoint } from "../ledger-audit/checkpoint.js";
import { DISCREPANCY_CATEGORIES, type ReconciliationReport } from "../reconciliation/report.js";
import { storageFailure } from "../storage/errors.js";
import { probeWrite } from "../storage/health-repository.js";
import { type DeliveryLog, DeliveryWorker } from "../webhooks/delivery-worker.js";

import { type Overrides, openServices, type Services, sandboxTransfers } from "./services.js";

// The server over the services: the HTTP app (buildServerApp), the background jobs, the
// webhook delivery worker, the metrics port; listening and closing in order.

/** The HTTP app over open services, configured from their config: the one call of buildApp. */
export function buildServerApp(
  services: Services,
  overrides: Pick<Overrides, "logger"> & { redis?: Redis } = {},
): FastifyInstance {
  const { config } = services;
  // The domain services the API's routes and the dashboard's pages both call.
  const { accounts, lifecycle, collections, collectionReads, banks, payouts, payoutListing, refunds } =
    services;
  const { settlements, settlementTerms, events, webhooks, redelivery, reconciliation } = services;
  const domain = {
    ...{ accounts, lifecycle, collections, collectionReads, banks, payouts, payoutListing, refunds },
    ...{ settlements, settlementTerms, events, webhooks, redelivery, reconciliation },
    heldCredits: services.heldCredits,
    creditBlocks: services.creditBlocks,
    blockReturns: services.blockReturns,
  };
  const app = buildApp({
    authenticator: services.authenticator,
    ...domain,
    sandbox: sandboxTransfers(config),
    maxTransferKobo: config.maxTransferKobo,
    ...(services.bankNotifications ? { bankNotifications: services.bankNotifications } : {}),
    requestRecords: services.requestRecords,
    metrics: services.metrics,
    // The public port serves /metrics in production only behind METRICS_TOKEN (docs/deploy.md).
    serveMetrics:
      config.metricsPort === undefined && (config.env !== "production" || config.metricsToken !== undefined),
    metricsToken: config.metricsToken,
    rateLimits: {
      perKeyPerMinute: config.rateLimitPerKeyPerMinute,
      perIpPerMinute: config.rateLimitPerIpPerMinute,
      badBankSignaturesPerMinute: config.bankNotificationBadSignaturesPerMinute,
      ...(overrides.redis ? { redis: overrides.redis } : {}),
      namespace: `${config.redisKeyPrefix}rate-limit:`,
    },
    health: new HealthMonitor(
      () => probeWrite(services.storage.db, new Date().toISOString()),
      storageFailure,
    ),
    bodyLimitBytes: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    trustProxy: config.trustProxy,
    logger: overrides.logger ?? { level: config.logLevel },
    dashboard: {
      users: services.users,
      secondFactor: services.secondFactor,
      businesses: services.businesses,
      profiles: services.profiles,
      ...domain,
      sessions: services.sessions,
      payoutSettings: services.payoutSettings,
      csrfKey: services.csrfKey,
      deviceKey: services.deviceKey,
      secureCookies: config.dashboard.secureCookies,
      signInPerMinute: config.dashboard.signInPerMinute,
      sandbox: sandboxTransfers(config),
      maxTransferKobo: config.maxTransferKobo,
      notices: services.notices,
      passwordResets: services.passwordResets,
      signUps: services.signUps,
      team: services.team,
      consoleSearch: services.consoleSearch,
      deadlines: services.deadlines,
      charges: services.charges,
      operators: services.operators,
      invitations: services.invitations,
      reveals: services.reveals,
      mailing: async (work) => {
        const { result, mail } = await services.mailer.sending(work, config.mail.waitMs);
        return { result, queued: mail.waiting > 0 };
      },
    },
  });
  // Money the bank described two ways: an operator must look (vas ledger conflicts).
  const stop = services.collections.onConflict((conflict) =>
    app.log.error(
      { conflict: { ...conflict }, code: "TRANSFER_CONFLICT" },
      "transfer conflict: a session id came again with another account, amount or currency; the first recording stands",
    ),
  );
  // The bank's breaker, as an operator reads it in the log.
  const stopBreakerLog = services.httpBank?.onBreakerChange((state) => {
    if (state === "open")
      app.log.error({ bank: config.bankName }, "bank circuit breaker open: calls to the bank are paused");
    else if (state === "half-open")
      app.log.warn({ bank: config.bankName }, "bank circuit breaker half-open: probing the bank");
    else app.log.info({ bank: config.bankName }, "bank circuit breaker closed: the bank answers again");
  });
  app.addHook("onClose", async () => {
    stop();
    stopBreakerLog?.();
  });
  return app;
}

/** How often temporary accounts past expiry get their account.expired event (within a minute). */
export const EXPIRY_SCAN_INTERVAL_MS = 20_000;

/** How often events past EVENT_RETENTION_DAYS are removed (in small batches). */
export const EVENT_PRUNE_INTERVAL_MS = 10 * 60_000;

/** How often expired replay and Idempotency-Key records are pruned. */
export const PRUNE_INTERVAL_MS = 60_000;

/** How often the mail job sends what is due (a message just queued is sent at once). */
export const MAIL_INTERVAL_MS = 15_000;

/** How often the ledger's heads are checkpointed (only those that moved; see docs/ledger.md). */
export const LEDGER_CHECKPOINT_INTERVAL_MS = 60 * 60_000;

/** How often credits and payouts are compared with the CBN's deadlines (issue 46, item 3). */
export const DEADLINE_WATCH_INTERVAL_MS = 60_000;

/** How often held credits past HELD_CREDIT_DAYS are looked for and returned (issue 46, item 6). */
export const HELD_CREDIT_INTERVAL_MS = 60_000;

/** A whole server: services, background jobs, the app (and the metrics app on METRICS_PORT). */
export interface Server {
  services: Services;
  app: FastifyInstance;
  /** Serves /metrics alone when METRICS_PORT is set. */
  metricsApp: FastifyInstance | undefined;
  jobs: JobRunner;
  /** Delivers webhooks from the database's queue (every server process runs one). */
  deliveries: DeliveryWorker;
  /** Starts the jobs and listens; resolves with the main address (and the metrics one, on METRICS_PORT). */
  listen(): Promise<{ address: string; metricsAddress?: string }>;
  /** Stops taking requests, finishes those in flight and the jobs' runs, then closes everything. */
  close(): Promise<void>;
}

export async function composeServer(config: Config, overrides: Overrides = {}): Promise<Server> {
  const services = await openServices(config, overrides);
  const redisErrors: Error[] = [];
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, (error) => redisErrors.push(error))
    : undefined;
  const app = buildServerApp(services, { ...overrides, ...(redis ? { redis } : {}) });
  const log = app.log;
  if (redis) {
    for (const error of redisErrors.splice(0)) log.warn({ err: error }, "Redis is not reachable yet");
    redis.on("error", (error) =>
      log.warn({ err: error }, "Redis error: rate limits are not enforced meanwhile"),
    );
  }
  let metricsApp: FastifyInstance | undefined;
  if (config.metricsPort !== undefined) {
    const { default: Fastify } = await import("fastify");
    metricsApp = Fastify({ logger: false });
    metricsRoute(metricsApp, services.metrics, config.metricsToken);
  }
  const jobs = new JobRunner((job, error) => log.warn({ err: error, job }, "background job failed"));
  jobs.add({
    name: "prune-request-records",
    intervalMs: PRUNE_INTERVAL_MS,
    run: () => services.requestRecords.prune(),
  });
  jobs.add({
    name: "prune-events",
    intervalMs: EVENT_PRUNE_INTERVAL_MS,
    run: () => services.events.prune(),
  });
  jobs.add({
    name: "prune-sessions",
    intervalMs: EVENT_PRUNE_INTERVAL_MS,
    run: async () => {
      await services.sessions.prune();
      await services.users.pruneSignInAttempts();
      await services.signUps.prune();
      await services.invitations.prune();
    },
  });
  jobs.add({
    name: "emit-account-expired",
    intervalMs: EXPIRY_SCAN_INTERVAL_MS,
    run: () => services.lifecycle.emitExpirations(),
  });
  jobs.add({
    name: "ledger-checkpoint",
    intervalMs: LEDGER_CHECKPOINT_INTERVAL_MS,
    run: () => recordCheckpoint(services.storage, services.box, overrides.now),
  });
  jobs.add({
    name: "check-payouts",
    intervalMs: config.payouts.checkIntervalMs,
    run: () => services.payoutTracker.run(),
  });
  jobs.add({
    name: "settle",
    intervalMs: config.settlements.checkIntervalMs,
    run: async () => {
      const pass = await services.settlements.runScheduled();
      for (const settled of pass.settled) {
        log.info(
          { settlementId: settled.id, amount: settled.amount, trigger: settled.trigger },
          "settlement made",
        );
      }
      for (const skipped of pass.skipped) log.debug(skipped, "settlement passed over");
    },
  });
  jobs.add({
    name: "reconcile",
    intervalMs: config.reconciliation.intervalMs,
    run: () => reconcilePass(services, log),
  });
  jobs.add({
    // Issue 46, item 6: held credits neither accepted nor returned in HELD_CREDIT_DAYS go back.
    name: "return-held-credits",
    intervalMs: HELD_CREDIT_INTERVAL_MS,
    run: async () => {
      const now = (overrides.now ?? Date.now)();
      const pass = await services.refunds.returnExpired(new Date(now - config.heldCreditMs).toISOString());
      for (const id of pass.returned)
        log.info({ transactionId: id }, "held credit returned after HELD_CREDIT_DAYS");
      for (const id of pass.failed) log.warn({ transactionId: id }, "held credit could not be returned");
    },
  });
  jobs.add({
    name: "watch-deadlines",
    intervalMs: DEADLINE_WATCH_INTERVAL_MS,
    run: () => deadlinePass(services, log),
  });
  jobs.add({ name: "send-mail", intervalMs: MAIL_INTERVAL_MS, run: () => services.mailer.deliver() });
  services.mailer.useLog(log);
  const notices = services.bankPayoutNotices;
  if (notices) {
    jobs.add({ name: "virtual-bank-payout-notices", intervalMs: notices.intervalMs, run: notices.run });
  }
  services.payoutTracker.useLog(log);
  // A payout just held is sent to the bank at once, not at the tracker's next pass.
  services.payouts.onHeld(() => services.payoutTracker.kick());
  const deliveries = createDeliveryWorker(services, log, overrides.now);
  let closed = false;
  return {
    services,
    app,
    metricsApp,
    jobs,
    deliveries,
    async listen() {
      const address = await app.listen({ port: config.port, host: config.host });
      const metricsAddress = metricsApp
        ? await metricsApp.listen({ port: config.metricsPort ?? 0, host: config.metricsHost })
        : undefined;
      jobs.start();
      deliveries.start();
      return { address, ...(metricsAddress ? { metricsAddress } : {}) };
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await metricsApp?.close();
      await jobs.stop();
      await services.payoutTracker.idle();
      // A reset link being made after its answer was sent is queued before the mail drains.
      await services.passwordResets.idle();
      await services.mailer.idle();
      await deliveries.stop();
      await services.close();
      // An unreachable Redis cannot say goodbye: drop the connection instead.
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}

/** The webhook delivery worker over open services, as the server runs it (tests drive it too). */
export function createDeliveryWorker(services: Services, log: DeliveryLog, now?: Clock): DeliveryWorker {
  const { webhooks } = services.config;
  const worker = new DeliveryWorker({
    storage: services.storage,
    deliveries: services.stores.deliveries,
    outcomes: services.stores.smallTransactions,
    endpoints: services.webhooks,
    timeoutMs: webhooks.timeoutMs,
    pollIntervalMs: webhooks.pollIntervalMs,
    concurrency: webhooks.concurrency,
    maxInFlightPerEndpoint: webhooks.maxInFlightPerEndpoint,
    retrySchedule: webhooks.retrySchedule,
    allowPrivate: webhooks.allowPrivate,
    log,
    ...(now ? { now } : {}),
  });
  // "Deliver again" is due now: the worker looks at once instead of at its next poll.
  services.redelivery.onQueued(() => worker.wake());
  return worker;
}

/**
 * The reconcile job's pass (issue 27): credits the bank's statement has that no notification
 * brought, each day's report once it is over; every discrepancy raises the alarm (the metric, an
 * error line, the console's banner).
 */
async function reconcilePass(services: Services, log: FastifyInstance["log"]): Promise<void> {
  const { reconciliation, metrics } = services;
  const pass = await reconciliation.runPass();
  for (const transaction of pass.recovered) {
    metrics.reconciliationRecovered.inc();
    log.warn(
      { transactionId: transaction.id, sessionId: transaction.sessionId, amount: transaction.amount },
      "payment recovered from the bank's statement: its notification never arrived",
    );
  }
  for (const report of pass.reports) logReport(log, report);
  const attention = await reconciliation.needingAttention();
  for (const category of DISCREPANCY_CATEGORIES) {
    metrics.reconciliationDiscrepancies.set(
      { category },
      attention.reduce((sum, report) => sum + report[category].count, 0),
    );
  }
}

/** A report as an operator reads it in the log: an error when it found discrepancies. */
export function logReport(
  log: Pick<FastifyInstance["log"], "info" | "error">,
  report: ReconciliationReport,
): void {
  const counts = Object.fromEntries(
    DISCREPANCY_CATEGORIES.map((category) => [category, report[category].count]),
  );
  const details = {
    reportId: report.id,
    date: report.date,
    matched: report.matched.count,
    recovered: report.recovered.count,
    ...counts,
  };
  if (report.discrepancies > 0) {
    log.error(
      { ...details, code: "RECONCILIATION_DISCREPANCY" },
      "reconciliation found discrepancies with the bank: see the console's Reconciliation page or vas reconcile",
    );
  } else log.info(details, "reconciliation: the ledger and the bank agree");
}

/**
 * The deadlines job's pass (issue 46, item 3): each late credit and each payout whose money is
 * late back (or not back) is counted and gets one warning, by the process that recorded it; a
 * payout at risk whose money came back since gets an info line.
 */
export async function deadlinePass(
  services: Pick<Services, "deadlines" | "metrics">,
  log: Pick<FastifyInstance["log"], "warn" | "info">,
): Promise<void> {
  const { deadlines, metrics } = services;
  const pass = await deadlines.run();
  const minutes = deadlines.creditLateMs / 60_000;
  const hours = deadlines.returnLateMs / 3_600_000;
  for (const credit of pass.lateCredits) {
    metrics.deadlineMisses.inc({ kind: "credit" });
    log.warn(
      {
        code: "CREDIT_APPLIED_LATE",
        transactionId: credit.itemId,
        businessId: credit.businessId,
        sessionId: credit.sessionId,
        amount: credit.amount,
        paidAt: credit.startedAt,
        appliedAt: credit.endedAt,
        elapsedMs: credit.lateMs,
        limitMs: deadlines.creditLateMs,
      },
      `credit applied more than ${minutes} minutes after the bank's paid time (CBN deadline): see the console's Deadlines page`,
    );
  }
  for (const payout of [...pass.lateReturns, ...pass.atRisk]) {
    metrics.deadlineMisses.inc({ kind: "return" });
    const back = payout.endedAt !== null;
    log.warn(
      {
        code: back ? "PAYOUT_RETURNED_LATE" : "PAYOUT_RETURN_OVERDUE",
        payoutId: payout.itemId,
        businessId: payout.businessId,
        reference: payout.reference,
        status: payout.status,
        amount: payout.amount,
        heldAt: payout.startedAt,
        returnedAt: payout.endedAt,
        elapsedMs: payout.lateMs,
        limitMs: deadlines.returnLateMs,
      },
      back
        ? `payout's money came back to the business more than ${hours} hours after its hold (CBN deadline): see the console's Deadlines page`
        : `payout's money is not back ${hours} hours after its hold, and it is not paid (CBN deadline): see the console's Deadlines page`,
    );
  }
  for (const closed of pass.closed) {
    log.info(closed, "an overdue payout's money is back with the business");
  }
  metrics.returnsAtRisk.set(pass.openReturns);
}
