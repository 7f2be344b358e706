import path from "node:path";
import type { TierLimits } from "../accounts/tiers.js";
import type { DatabaseLocation } from "../core/database-location.js";
import type { PayoutFeeTier } from "../ledger/payout-fees.js";
import type { NipReading } from "../providers/nip.js";
import { DEFAULT_RETRY_SCHEDULE_MS } from "../webhooks/retry-schedule.js";
import { envSchema, type LOG_LEVELS } from "./environment.js";
import { type ProviderConfig, providerConfig } from "./provider.js";

export { describeDatabase, parseDatabaseUrl } from "./environment.js";
export type { DatabaseLocation, ProviderConfig };

/** The service's whole configuration, validated once at start. */
export type Config = Readonly<{
  env: "development" | "production" | "test";
  port: number;
  host: string;
  database: DatabaseLocation;
  databasePoolSize: number;
  databaseStatementTimeoutMs: number;
  databaseSsl: "disable" | "require" | "verify-full";
  /** SQLite commit durability: normal (WAL default, survives process crashes) or full (also power cuts). */
  sqliteSynchronous: "normal" | "full";
  /** How long SQLite waits for another connection's write lock before a 503. */
  sqliteBusyTimeoutMs: number;
  /** A port of its own for GET /metrics (undefined: on the main port, but in production only with METRICS_TOKEN). */
  metricsPort: number | undefined;
  metricsHost: string;
  /** Required as `Authorization: Bearer` wherever /metrics is served, when set. Never logged. */
  metricsToken: string | undefined;
  dataDir: string;
  masterKey: Buffer | undefined;
  /** Earlier master keys that still open secrets (while rotating). */
  previousMasterKeys: readonly Buffer[];
  logLevel: (typeof LOG_LEVELS)[number];
  nubanInstitutionCode: string;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  trustProxy: boolean;
  /** How stale a key or business-status change may be in a running process. */
  authCacheTtlMs: number;
  rateLimitPerKeyPerMinute: number;
  rateLimitPerIpPerMinute: number;
  /** Bad-signature bank notifications per client address per minute before it gets 429s (0: no limit). */
  bankNotificationBadSignaturesPerMinute: number;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /**
   * Sandbox behaviour on: the embedded bank's sandbox identity numbers give their fixed
   * outcomes. Default true, except with NODE_ENV=production where it must be asked for.
   */
  sandbox: boolean;
  /** The largest inbound transfer accepted, in kobo. */
  maxTransferKobo: number;
  /** What an account of each KYC tier may receive (TIER1_LIMITS ...; the CBN's values by default). */
  tierLimits: TierLimits;
  /** Where account numbers come from: the embedded Virtual Bank, or a bank over HTTP. */
  provider: ProviderConfig;
  /** The bank's name as account holders see it (the spec's bankName). */
  bankName: string;
  payouts: {
    /** A payout pending longer than this is reported stuck (it is still asked about). */
    stuckAfterMs: number;
    /** The first wait between two questions to the bank about a pending payout (doubling, up to 5 minutes). */
    checkIntervalMs: number;
    /** Status queries left unresolved before a payout needs an operator's attention. */
    attentionAfterQueries: number;
    /** How the bank's NIP response codes are read: the table, with these codes taken as unknown. */
    nipReading: NipReading;
    /** The embedded bank's sandbox: how long a payout stays pending, and how long until a reversal. */
    sandboxSettleMs: number;
    sandboxReverseMs: number;
    /** The caps a business's fee tiers stay within unless the operator says otherwise (PAYOUT_FEE_CAPS). */
    feeCaps: readonly PayoutFeeTier[];
  };
  /** The CBN's instant-transfer deadlines (reconciliation/deadline-watch.ts). */
  deadlines: {
    /** A credit applied later than this after the bank's paid time is late (DEADLINE_CREDIT_MINUTES). */
    creditLateMs: number;
    /** A payout's money not back this long after its hold is late (DEADLINE_RETURN_HOURS). */
    returnLateMs: number;
  };
  settlements: {
    /** No settlement goes to a new settlement account for this long after it is set. */
    coolOffMs: number;
    /** How often the schedule looks for daily settlements due and instant ones to make. */
    checkIntervalMs: number;
  };
  mail: {
    /** SMTP (SMTP_URL), or, without it (development and tests), .eml files in DATA_DIR/mail. */
    transport: { kind: "smtp"; url: string; timeouts: SmtpTimeouts } | { kind: "files"; dir: string };
    /** How long the CLI and the console wait for a mail they just queued before saying it is queued (MAIL_WAIT_MS). */
    waitMs: number;
    /** The From of every mail (MAIL_FROM). */
    from: string;
    /** Where users reach the service (PUBLIC_URL, no trailing slash): every link in a mail starts with it. */
    publicUrl: string;
  };
  reconciliation: {
    /** How often the job reads the bank's statement for credits no notification brought (RECONCILE_INTERVAL_SECONDS). */
    intervalMs: number;
  };
  /** A held credit neither accepted nor returned this long after it came is returned (HELD_CREDIT_DAYS). */
  heldCreditMs: number;
  /** Events (and their deliveries and attempts) older than this are removed. */
  eventRetentionDays: number;
  webhooks: {
    /** Deliver to private, loopback and link-local addresses (default: on in development only). */
    allowPrivate: boolean;
    /** Only https URLs (production). */
    requireHttps: boolean;
    timeoutMs: number;
    pollIntervalMs: number;
    /** Deliveries in flight at once in one process. */
    concurrency: number;
    /** Deliveries to one endpoint in flight at once in one process (one while it fails a run). */
    maxInFlightPerEndpoint: number;
    /** Delays before each retry after a failure. */
    retrySchedule: readonly number[];
  };
  dashboard: {
    /** A dashboard session unused this long ends. */
    sessionIdleMs: number;
    /** A dashboard session ends this long after sign-in, however active. */
    sessionMaxMs: number;
    /** Sign-in attempts per client address per minute (0: no limit). */
    signInPerMinute: number;
    /** Session and CSRF cookies are Secure (production, behind HTTPS). */
    secureCookies: boolean;
    /** An authenticator set up this recently moves no money (MONEY_COOL_OFF_HOURS). */
    moneyCoolOffHours: number;
  };
}>;

/** How long an SMTP send waits for each step: the connection, the server's greeting, each command's answer. */
export interface SmtpTimeouts {
  connectMs: number;
  greetingMs: number;
  commandMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** What `vas request` reads from the environment: the credentials and address of a business's client. */
export interface ClientEnvironment {
  apiKey: string | undefined;
  secretKey: string | undefined;
  baseUrl: string;
}

/** The client side of the environment: VAS_API_KEY, VAS_SECRET_KEY, VAS_BASE_URL (empty counts as unset). */
export function loadClientEnvironment(env: NodeJS.ProcessEnv = process.env): ClientEnvironment {
  const value = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name]);
  return {
    apiKey: value("VAS_API_KEY"),
    secretKey: value("VAS_SECRET_KEY"),
    baseUrl: value("VAS_BASE_URL") ?? "http://127.0.0.1:3000",
  };
}

/** Parses the environment (unset and empty variables take their defaults); throws ConfigError listing every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = envSchema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => issue.message));
  }
  const e = result.data;
  if (e.NODE_ENV === "production" && !e.VAS_MASTER_KEY) {
    throw new ConfigError([
      "VAS_MASTER_KEY is required when NODE_ENV=production (generate one with: openssl rand -hex 32)",
    ]);
  }
  if (e.NODE_ENV === "production" && !e.SMTP_URL) {
    // Sign-up confirmation, invitations and recovery are mailed: without a way to send them, a
    // business could not sign up or get back in.
    throw new ConfigError([
      "SMTP_URL is required when NODE_ENV=production: the dashboard mails confirmations, invitations and recovery links (smtp://user:pass@host:587)",
    ]);
  }
  const problems: string[] = [];
  const provider = providerConfig(e, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  const database: DatabaseLocation =
    e.DATABASE_URL.dialect === "sqlite" && e.DATABASE_URL.file !== ":memory:"
      ? { dialect: "sqlite", file: path.resolve(e.DATABASE_URL.file) }
      : e.DATABASE_URL;
  return Object.freeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    database,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseSsl: e.DATABASE_SSL,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    sqliteBusyTimeoutMs: e.SQLITE_BUSY_TIMEOUT_MS,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    metricsToken: e.METRICS_TOKEN,
    dataDir: path.resolve(e.DATA_DIR),
    masterKey: e.VAS_MASTER_KEY,
    previousMasterKeys: e.VAS_MASTER_KEY_PREVIOUS ?? [],
    logLevel: e.LOG_LEVEL,
    nubanInstitutionCode: e.NUBAN_INSTITUTION_CODE,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
    rateLimitPerKeyPerMinute: e.RATE_LIMIT_PER_KEY_PER_MIN,
    rateLimitPerIpPerMinute: e.RATE_LIMIT_PER_IP_PER_MIN,
    bankNotificationBadSignaturesPerMinute: e.BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    sandbox: e.SANDBOX ?? e.NODE_ENV !== "production",
    maxTransferKobo: e.MAX_TRANSFER_KOBO,
    tierLimits: { 1: e.TIER1_LIMITS, 2: e.TIER2_LIMITS, 3: e.TIER3_LIMITS },
    provider,
    bankName: e.BANK_NAME,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    payouts: {
      stuckAfterMs: e.PAYOUT_STUCK_MINUTES * 60_000,
      checkIntervalMs: e.PAYOUT_CHECK_INTERVAL_MS,
      attentionAfterQueries: e.PAYOUT_ATTENTION_QUERIES,
      nipReading: { unknownCodes: new Set(e.NIP_UNKNOWN_CODES === "" ? [] : e.NIP_UNKNOWN_CODES.split(",")) },
      sandboxSettleMs: e.SANDBOX_PAYOUT_SETTLE_MS,
      sandboxReverseMs: e.SANDBOX_PAYOUT_REVERSE_MS,
      feeCaps: e.PAYOUT_FEE_CAPS,
    },
    deadlines: {
      creditLateMs: e.DEADLINE_CREDIT_MINUTES * 60_000,
      returnLateMs: e.DEADLINE_RETURN_HOURS * 3_600_000,
    },
    settlements: {
      coolOffMs: e.SETTLEMENT_COOL_OFF_HOURS * 3_600_000,
      checkIntervalMs: e.SETTLEMENT_CHECK_INTERVAL_MS,
    },
    reconciliation: { intervalMs: e.RECONCILE_INTERVAL_SECONDS * 1_000 },
    heldCreditMs: e.HELD_CREDIT_DAYS * 86_400_000,
    mail: {
      transport: e.SMTP_URL
        ? ({
            kind: "smtp",
            url: e.SMTP_URL,
            timeouts: {
              connectMs: e.SMTP_CONNECT_TIMEOUT_MS,
              greetingMs: e.SMTP_GREETING_TIMEOUT_MS,
              commandMs: e.SMTP_COMMAND_TIMEOUT_MS,
            },
          } as const)
        : ({ kind: "files", dir: path.join(path.resolve(e.DATA_DIR), "mail") } as const),
      from: e.MAIL_FROM,
      waitMs: e.MAIL_WAIT_MS,
      publicUrl: (e.PUBLIC_URL ?? `http://${publicHost(e.HOST)}:${e.PORT}`).replace(/\/+$/, ""),
    },
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? e.NODE_ENV === "development",
      requireHttps: e.NODE_ENV === "production",
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      maxInFlightPerEndpoint: e.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_RETRY_SCHEDULE_MS,
    },
    dashboard: {
      sessionIdleMs: e.DASHBOARD_SESSION_IDLE_MINUTES * 60_000,
      sessionMaxMs: e.DASHBOARD_SESSION_MAX_HOURS * 3_600_000,
      signInPerMinute: e.SIGN_IN_RATE_LIMIT_PER_MIN,
      secureCookies: e.NODE_ENV === "production",
      moneyCoolOffHours: e.MONEY_COOL_OFF_HOURS ?? ((e.SANDBOX ?? e.NODE_ENV !== "production") ? 0 : 24),
    },
  });
}

/** The host a link can name for a listening address: a wildcard one is reached as localhost. */
const publicHost = (host: string) =>
  host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
