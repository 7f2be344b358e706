import path from "node:path";
import { z } from "zod";
import { type ProviderConfig, providerConfig } from "./config-provider.js";
import { DEFAULT_MAX_TRANSFER_KOBO } from "./ledger/kobo.js";
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from "./webhooks/retry-schedule.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const integerString = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`);

const booleanString = (name: string) =>
  z
    .enum(["true", "false", "1", "0"], { error: `${name} must be true or false` })
    .transform((v) => v === "true" || v === "1");

/** A 32-byte key written as 64 hex characters or as base64. */
export function parseMasterKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed, "base64");
    if (key.length === 32) return key;
  }
  return undefined;
}

const masterKey = (name: string) =>
  z.string().transform((text, ctx) => {
    const key = parseMasterKey(text);
    if (!key) {
      ctx.addIssue({
        code: "custom",
        message: `${name} must be 32 bytes written as 64 hex characters or base64`,
      });
      return z.NEVER;
    }
    return key;
  });

export type DatabaseLocation = { dialect: "sqlite"; file: string } | { dialect: "postgres"; url: string };

/** The location for logs and messages: a PostgreSQL URL loses its password. */
export function describeDatabase(location: DatabaseLocation): string {
  if (location.dialect === "sqlite") return `sqlite:${location.file}`;
  try {
    const url = new URL(location.url);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://(unparseable URL)";
  }
}

/** `sqlite:<path>` (`:memory:` allowed) or `postgres://` / `postgresql://`. */
export function parseDatabaseUrl(url: string): DatabaseLocation | undefined {
  if (url.startsWith("sqlite:")) {
    const file = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    return file.length > 0 ? { dialect: "sqlite", file } : undefined;
  }
  if (/^postgres(ql)?:\/\/.+/.test(url)) return { dialect: "postgres", url };
  return undefined;
}

const envSchema = z.object({
  NODE_ENV: z
    .enum(["development", "production", "test"], {
      error: "NODE_ENV must be development, production or test",
    })
    .default("development"),
  PORT: integerString("PORT", 0, 65535).default(3000),
  HOST: z.string().min(1, "HOST must not be empty").default("127.0.0.1"),
  DATABASE_URL: z
    .string()
    .default("sqlite:./data/vas.db")
    .transform((url, ctx) => {
      const location = parseDatabaseUrl(url);
      if (!location) {
        ctx.addIssue({
          code: "custom",
          message: "DATABASE_URL must look like sqlite:<path> or postgres://user@host:port/database",
        });
        return z.NEVER;
      }
      return location;
    }),
  DATABASE_POOL_SIZE: integerString("DATABASE_POOL_SIZE", 1, 1000).default(10),
  DATABASE_STATEMENT_TIMEOUT_MS: integerString("DATABASE_STATEMENT_TIMEOUT_MS", 0, 3_600_000).default(10_000),
  DATABASE_SSL: z
    .enum(["disable", "require", "verify-full"], {
      error: "DATABASE_SSL must be disable, require or verify-full",
    })
    .default("disable"),
  SQLITE_SYNCHRONOUS: z
    .enum(["normal", "full"], { error: "SQLITE_SYNCHRONOUS must be normal or full" })
    .default("normal"),
  SQLITE_BUSY_TIMEOUT_MS: integerString("SQLITE_BUSY_TIMEOUT_MS", 0, 600_000).default(5_000),
  METRICS_PORT: integerString("METRICS_PORT", 0, 65535).optional(),
  METRICS_HOST: z.string().min(1, "METRICS_HOST must not be empty").default("127.0.0.1"),
  // A bearer token (RFC 6750's token68 alphabet, so it travels in a header unchanged); the
  // message never echoes the value.
  METRICS_TOKEN: z
    .string()
    .regex(
      /^[A-Za-z0-9\-._~+/]{16,512}=*$/,
      "METRICS_TOKEN must be 16 to 512 characters of A-Z a-z 0-9 - . _ ~ + / (generate one with: openssl rand -hex 32)",
    )
    .optional(),
  DATA_DIR: z.string().min(1, "DATA_DIR must not be empty").default("./data"),
  VAS_MASTER_KEY: masterKey("VAS_MASTER_KEY").optional(),
  VAS_MASTER_KEY_PREVIOUS: z
    .string()
    .transform((text, ctx) => {
      const keys = text.split(",").map((part) => parseMasterKey(part));
      if (keys.some((key) => key === undefined)) {
        ctx.addIssue({
          code: "custom",
          message:
            "VAS_MASTER_KEY_PREVIOUS must be a comma-separated list of 32-byte keys (64 hex characters or base64)",
        });
        return z.NEVER;
      }
      return keys as Buffer[];
    })
    .optional(),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}` })
    .default("info"),
  NUBAN_INSTITUTION_CODE: z
    .string()
    .regex(/^\d{6}$/, "NUBAN_INSTITUTION_CODE must be exactly 6 digits")
    .default("999240"),
  BODY_LIMIT_BYTES: integerString("BODY_LIMIT_BYTES", 256, 1_048_576).default(16_384),
  REQUEST_TIMEOUT_MS: integerString("REQUEST_TIMEOUT_MS", 1_000, 600_000).default(30_000),
  SHUTDOWN_TIMEOUT_MS: integerString("SHUTDOWN_TIMEOUT_MS", 1_000, 600_000).default(10_000),
  TRUST_PROXY: booleanString("TRUST_PROXY").default(false),
  AUTH_CACHE_TTL_MS: integerString("AUTH_CACHE_TTL_MS", 0, 60_000).default(2_000),
  RATE_LIMIT_PER_KEY_PER_MIN: integerString("RATE_LIMIT_PER_KEY_PER_MIN", 0, 10_000_000).default(600),
  RATE_LIMIT_PER_IP_PER_MIN: integerString("RATE_LIMIT_PER_IP_PER_MIN", 0, 10_000_000).default(1200),
  BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN: integerString(
    "BANK_NOTIFICATION_BAD_SIGNATURES_PER_MIN",
    0,
    10_000,
  ).default(30),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, "REDIS_URL must look like redis://host:6379 (or rediss:// for TLS)")
    .optional(),
  REDIS_KEY_PREFIX: z.string().min(1, "REDIS_KEY_PREFIX must not be empty").default("vas:"),
  // No default here: it depends on NODE_ENV (see loadConfig).
  SANDBOX: booleanString("SANDBOX").optional(),
  // No default here: on in development only (see loadConfig).
  WEBHOOK_ALLOW_PRIVATE: booleanString("WEBHOOK_ALLOW_PRIVATE").optional(),
  EVENT_RETENTION_DAYS: integerString("EVENT_RETENTION_DAYS", 1, 3650).default(90),
  WEBHOOK_TIMEOUT_MS: integerString("WEBHOOK_TIMEOUT_MS", 100, 60_000).default(15_000),
  WEBHOOK_POLL_INTERVAL_MS: integerString("WEBHOOK_POLL_INTERVAL_MS", 10, 60_000).default(1_000),
  WEBHOOK_CONCURRENCY: integerString("WEBHOOK_CONCURRENCY", 1, 200).default(16),
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: integerString("WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT", 1, 200).default(4),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .transform((text, ctx) => {
      const schedule = parseRetrySchedule(text);
      if (!schedule) {
        ctx.addIssue({
          code: "custom",
          message: "WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated delays like 5s,5m,30m,2h",
        });
        return z.NEVER;
      }
      return schedule;
    })
    .optional(),
  DASHBOARD_SESSION_IDLE_MINUTES: integerString("DASHBOARD_SESSION_IDLE_MINUTES", 1, 1440).default(30),
  DASHBOARD_SESSION_MAX_HOURS: integerString("DASHBOARD_SESSION_MAX_HOURS", 1, 720).default(12),
  SIGN_IN_RATE_LIMIT_PER_MIN: integerString("SIGN_IN_RATE_LIMIT_PER_MIN", 0, 10_000).default(10),
  PROVIDER: z.enum(["embedded", "http"], { error: "PROVIDER must be embedded or http" }).default("embedded"),
  BANK_URL: z
    .string()
    .refine(
      (url) => /^https?:\/\//.test(url) && URL.canParse(url),
      "BANK_URL must be an http:// or https:// URL",
    )
    .optional(),
  BANK_APP_ID: z.string().max(128, "BANK_APP_ID must be at most 128 characters").optional(),
  BANK_PRIVATE_KEY_FILE: z.string().optional(),
  BANK_PUBLIC_KEY_FILE: z.string().optional(),
  BANK_NAME: z.string().max(100, "BANK_NAME must be at most 100 characters").default("Virtual Bank"),
  BANK_TIMEOUT_MS: integerString("BANK_TIMEOUT_MS", 100, 120_000).default(10_000),
  BANK_CREATE_ATTEMPTS: integerString("BANK_CREATE_ATTEMPTS", 1, 10).default(3),
  BANK_CREATE_BUDGET_MS: integerString("BANK_CREATE_BUDGET_MS", 100, 600_000).default(25_000),
  BANK_BREAKER_THRESHOLD: integerString("BANK_BREAKER_THRESHOLD", 1, 1000).default(5),
  BANK_BREAKER_HALF_OPEN_MS: integerString("BANK_BREAKER_HALF_OPEN_MS", 100, 3_600_000).default(30_000),
  // Up to 10^12 kobo (NGN 10 billion): far below 2^53, so no sum of a few thousand overflows.
  MAX_TRANSFER_KOBO: integerString("MAX_TRANSFER_KOBO", 1, 1_000_000_000_000).default(
    DEFAULT_MAX_TRANSFER_KOBO,
  ),
});

export type { ProviderConfig };

/** The environment as the schema parsed it (config-provider.ts reads the bank's part). */
export type ParsedEnvironment = z.infer<typeof envSchema>;

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
  /** Where account numbers come from: the embedded Virtual Bank, or a bank over HTTP. */
  provider: ProviderConfig;
  /** The bank's name as account holders see it (the spec's bankName). */
  bankName: string;
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
  };
}>;

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
    provider,
    bankName: e.BANK_NAME,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
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
    },
  });
}
