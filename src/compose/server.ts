import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { buildApp } from "../app.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config/load.js";
import { HealthMonitor } from "../http/health.js";
import { metricsRoute } from "../http/metrics.js";
import { connectRedis } from "../http/rate-limit.js";
import type { JobRunner } from "../jobs/job-runner.js";
import { storageFailure } from "../storage/errors.js";
import { probeWrite } from "../storage/health-repository.js";
import { type DeliveryLog, DeliveryWorker } from "../webhooks/delivery-worker.js";

import { composeJobs } from "./jobs.js";
import { type Overrides, openServices, type Services, sandboxTransfers } from "./services.js";

// The server over the services: the HTTP app (buildServerApp), the background jobs (jobs.ts),
// the webhook delivery worker, the metrics port; listening and closing in order.

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
  const jobs = composeJobs(services, log, overrides.now);
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
