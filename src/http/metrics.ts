import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { AppError, ErrorCode } from "../errors.js";
import { failBody } from "./error-handler.js";

/** What the database pool holds at one moment. */
export interface PoolState {
  total: number;
  idle: number;
  waiting: number;
}

/** The service's Prometheus metrics: one registry per app, so that several apps in one process never collide. */
export class Metrics {
  readonly registry = new Registry();

  /** `readPool` is called on each scrape, so the pool gauge is never stale. */
  constructor(private readonly readPool: () => PoolState = () => ({ total: 1, idle: 1, waiting: 0 })) {}

  readonly requests = new Counter({
    name: "vas_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status code.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: "vas_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route pattern and status code.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly queryDuration = new Histogram({
    name: "vas_db_query_duration_seconds",
    help: "Database statement time, by statement kind (select, insert, update, delete, other) and outcome.",
    labelNames: ["kind", "outcome"] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly accountsIssued = new Counter({
    name: "vas_accounts_issued_total",
    help: "Account numbers issued, by kind (permanent, temporary) and whether it was a re-issue.",
    labelNames: ["kind", "reissue"] as const,
    registers: [this.registry],
  });
  readonly providerErrors = new Counter({
    name: "vas_provider_errors_total",
    help: "Account provider (bank) calls that failed, by outcome: rejected (the bank refused) or unavailable.",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly payoutsStuck = new Gauge({
    name: "vas_payouts_stuck",
    help: "Payouts pending longer than PAYOUT_STUCK_MINUTES: the bank has not said where they stand (still asked).",
    registers: [this.registry],
  });
  readonly payoutsNeedingAttention = new Counter({
    name: "vas_payouts_needing_attention_total",
    help: "Payouts marked as needing attention: still unresolved after PAYOUT_ATTENTION_QUERIES status queries (the console lists them).",
    registers: [this.registry],
  });
  readonly deadlineMisses = new Counter({
    name: "vas_deadline_misses_total",
    help: "Items found past a CBN deadline, each counted once by the process that found it, by kind: credit (applied more than DEADLINE_CREDIT_MINUTES after the bank's paid time), return (a payout's money back more than DEADLINE_RETURN_HOURS after its hold, or not back by then).",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly returnsAtRisk = new Gauge({
    name: "vas_deadline_returns_at_risk",
    help: "Payouts held longer than DEADLINE_RETURN_HOURS whose money is neither paid nor back yet, after the last deadlines pass.",
    registers: [this.registry],
  });
  readonly bankBreakerState = new Gauge({
    name: "vas_bank_breaker_state",
    help: "The bank's circuit breaker (PROVIDER=http): 0 closed, 1 half-open (probing), 2 open (calls paused).",
    registers: [this.registry],
  });
  readonly reconciliationDiscrepancies = new Gauge({
    name: "vas_reconciliation_discrepancies",
    help: "Discrepancies in the newest reconciliation report of each of the last 7 days, by category (missingAtBank, mismatched, notCredited, payoutStatusMismatch): docs/ledger.md.",
    labelNames: ["category"] as const,
    registers: [this.registry],
  });
  readonly reconciliationRecovered = new Counter({
    name: "vas_reconciliation_recovered_total",
    help: "Credits the bank's statement had and no notification brought, credited by the reconciliation job.",
    registers: [this.registry],
  });
  readonly mailAttempts = new Counter({
    name: "vas_mail_attempts_total",
    help: "Attempts to send a mail, by outcome (sent, failed: refused, unreachable or timed out; the outbox tries again).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  /** Read on each scrape once set (the outbox's count); 0 before. */
  readMailWaiting: () => Promise<number> = async () => 0;
  readonly mailWaiting = (() => {
    const read = () => this.readMailWaiting();
    return new Gauge({
      name: "vas_mail_waiting",
      help: "Mails queued and not yet sent (the mail server did not answer, or refused): the outbox tries again.",
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  })();
  readonly transferConflicts = new Counter({
    name: "vas_transfer_conflicts_total",
    help: "Bank notifications refused because their session id was recorded with another account, amount or currency.",
    registers: [this.registry],
  });
  readonly poolConnections = (() => {
    const readPool = () => this.readPool();
    return new Gauge({
      name: "vas_db_pool_connections",
      help: "PostgreSQL pool connections by state (total, idle, waiting requests); SQLite has one connection.",
      labelNames: ["state"] as const,
      registers: [this.registry],
      collect() {
        const state = readPool();
        this.set({ state: "total" }, state.total);
        this.set({ state: "idle" }, state.idle);
        this.set({ state: "waiting" }, state.waiting);
      },
    });
  })();
}

declare module "fastify" {
  interface FastifyRequest {
    /** The error code the request failed with, set by the error handler (for metrics). */
    failureCode?: string;
  }
}

/** The account numbers a successful answer of this route issued, if it issues any. */
function issuedBy(route: string, status: number): { kind: string; reissue: string } | undefined {
  if (route.endsWith("/account/generate/temporary")) return { kind: "temporary", reissue: "false" };
  if (route.endsWith("/account/generate")) return { kind: "permanent", reissue: String(status === 200) };
  return undefined;
}

/** Where GET /metrics is served on an app, and who may read it. */
export interface MetricsExposure {
  /** Serve it on this app (compose/ decides: not on the main port with METRICS_PORT, nor in production without a token). */
  serve: boolean;
  /** When set, only `Authorization: Bearer <token>` reads it (METRICS_TOKEN). */
  token?: string | undefined;
}

/**
 * Counts and times every request by route pattern (never the raw URL, so cardinality stays
 * bounded), and serves GET /metrics in the Prometheus text format on `app` when asked to (the
 * main port); compose/server.ts serves it on a port of its own when METRICS_PORT is set.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, exposure: MetricsExposure): void {
  app.addHook("onResponse", async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? "(no route)",
      status: String(reply.statusCode),
    };
    metrics.requests.inc(labels);
    metrics.requestDuration.observe(labels, reply.elapsedTime / 1000);
    if (request.failureCode === ErrorCode.PROVIDER_REJECTED)
      metrics.providerErrors.inc({ outcome: "rejected" });
    if (request.failureCode === ErrorCode.PROVIDER_UNAVAILABLE)
      metrics.providerErrors.inc({ outcome: "unavailable" });
    // A replayed answer issued nothing.
    if (reply.getHeader("idempotent-replayed") === undefined && reply.statusCode < 300) {
      const issued = issuedBy(labels.route, reply.statusCode);
      if (issued) metrics.accountsIssued.inc(issued);
    }
  });
  if (exposure.serve) metricsRoute(app, metrics, exposure.token);
}

/**
 * GET /metrics: with a token, only for `Authorization: Bearer <token>` (anything else: 401, the
 * same answer for a missing and a wrong token); without one, for anyone, so keep it off the
 * public network (METRICS_PORT).
 */
export function metricsRoute(app: FastifyInstance, metrics: Metrics, token?: string): void {
  const expected = token === undefined ? undefined : digest(token);
  app.get("/metrics", async (request, reply) => {
    if (expected && !bearerMatches(request.headers.authorization, expected)) {
      // Answered here, not thrown: the METRICS_PORT app has no error handler of its own.
      const refused = new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "Missing or invalid metrics token");
      return reply.code(401).header("www-authenticate", 'Bearer realm="metrics"').send(failBody(refused));
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

// Compared as SHA-256 digests: equal lengths whatever was sent, so timingSafeEqual applies and
// the time taken says nothing about the token's length or its first differing character.
const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}
