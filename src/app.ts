import Fastify, { type FastifyInstance, type FastifyReply, LogController } from "fastify";
import type { DestinationStream, LevelWithSilent } from "pino";
import type { Authenticator } from "./auth/authenticator.js";
import type { BankNotifications } from "./collections/bank-notifications.js";
import type { DashboardDependencies } from "./dashboard/kit.js";
import { registerDashboard } from "./dashboard/plugin.js";
import { withContracts } from "./http/contract-validation.js";
import { answerClientError, answerFrameworkError, registerErrorHandling } from "./http/error-handler.js";
import { registerApiDoor, registerFrontDoor, requestIdOf } from "./http/front-door.js";
import type { HealthMonitor } from "./http/health.js";
import { type Metrics, registerMetrics } from "./http/metrics.js";
import { buildOpenApiDocument } from "./http/openapi.js";
import { type RateLimitSettings, registerRateLimiting } from "./http/rate-limit.js";
import { bankNotificationsRoute } from "./http/routes/bank-notifications.js";
import { docsRoute } from "./http/routes/docs.js";
import { healthRoutes } from "./http/routes/health.js";
import { API_ROUTES } from "./http/routes/index.js";
import { openApiRoute } from "./http/routes/openapi.js";
import type { RequestRecords } from "./idempotency/request-records.js";
import type { PayoutNotifications } from "./payouts/payout-notifications.js";
import type { DomainServices } from "./web/domain-services.js";

export const API_PREFIX = "/api/v1/external";

/** Everything the HTTP app needs, built by the caller (main.ts or a test). */
export interface AppDependencies extends DomainServices {
  authenticator: Authenticator;
  /**
   * The bank's notifications (PROVIDER=http): payments at POST /api/v1/bank/notifications,
   * transfers out's statuses at POST /api/v1/bank/payout-notifications.
   */
  bankNotifications?: { payments: BankNotifications; payouts: PayoutNotifications };
  /** Serve POST /sandbox/transfers (SANDBOX). */
  sandbox: boolean;
  /** MAX_TRANSFER_KOBO: the limit the sandbox's transfers name. */
  maxTransferKobo: number;
  requestRecords: RequestRecords;
  metrics: Metrics;
  /** Serve GET /metrics on this app (false when it has a port of its own, or in production without a token). */
  serveMetrics: boolean;
  /** METRICS_TOKEN: required as a bearer token for GET /metrics, when set. */
  metricsToken?: string | undefined;
  rateLimits: RateLimitSettings;
  /** What /health/ready reports (a write probe and the last writes' outcome). */
  health: HealthMonitor;
  bodyLimitBytes: number;
  requestTimeoutMs?: number;
  trustProxy?: boolean;
  logger?: { level: LevelWithSilent; stream?: DestinationStream };
  /** The business dashboard (/dashboard) and the operator console (/admin). */
  dashboard?: DashboardDependencies;
}

/** Request line plus headers; a larger request is a 431. */
export const MAX_HEADER_BYTES = 16_384;

// Never logged, whatever a future log line includes.
const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-signature"]',
  "req.headers.authorization",
  "req.body",
  "body",
];

/** Builds the Fastify app. Reads no environment and does not listen. */
export function buildApp(deps: AppDependencies): FastifyInstance {
  const app = Fastify({
    logger: deps.logger
      ? {
          level: deps.logger.level,
          redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
          ...(deps.logger.stream ? { stream: deps.logger.stream } : {}),
        }
      : false,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    requestTimeout: deps.requestTimeoutMs ?? 30_000,
    connectionTimeout: deps.requestTimeoutMs ?? 30_000,
    trustProxy: deps.trustProxy ?? false,
    // Check for requests past their timeout every second (Node's default is every 30 s).
    http: { maxHeaderSize: MAX_HEADER_BYTES, connectionsCheckingInterval: 1_000 },
    keepAliveTimeout: 5_000,
    clientErrorHandler: answerClientError,
    // A path Fastify cannot decode (`/%zz`) is answered before any hook: keep the envelope.
    frameworkErrors: (error, request, reply) =>
      answerFrameworkError(error, request, reply as unknown as FastifyReply),
    return503OnClosing: true,
    requestIdHeader: false,
    genReqId: requestIdOf,
  });

  app.decorate("health", deps.health);
  registerErrorHandling(app, deps.bodyLimitBytes);
  registerFrontDoor(app, deps.bodyLimitBytes);
  registerRateLimiting(app, deps.rateLimits);
  healthRoutes(app, deps.health);
  app.decorateRequest("failureCode", undefined);
  registerMetrics(app, deps.metrics, { serve: deps.serveMetrics, token: deps.metricsToken });
  // Public, outside the authenticated (and rate-limited) scope below; the document is built once.
  const openApiDocument = buildOpenApiDocument(API_PREFIX);
  openApiRoute(app, `${API_PREFIX}/openapi.json`, openApiDocument);
  docsRoute(app, openApiDocument);
  // The bank authenticates with its own signature, not an API key: outside the API's scope.
  if (deps.bankNotifications) {
    const { payments, payouts } = deps.bankNotifications;
    bankNotificationsRoute(app, payments, payouts, deps.rateLimits.badBankSignaturesPerMinute);
  }

  app.register(
    async (api) => {
      registerApiDoor(api, deps);
      const routes = withContracts(api);
      for (const route of API_ROUTES) route.register(routes, deps);
    },
    { prefix: API_PREFIX },
  );
  const dashboard = deps.dashboard;
  if (dashboard) {
    app.register((scope) => registerDashboard(scope, dashboard));
    // Someone who types the service's address lands where people work, not on a 404.
    app.get("/", async (_request, reply) => reply.redirect("/dashboard", 302));
  }
  return app;
}
