import { z } from "zod";
import { CBN_TIER_LIMITS, parseTierLimit, type Tier } from "../accounts/tiers.js";
import { parseMasterKey } from "../businesses/master-key.js";
import type { DatabaseLocation } from "../core/database-location.js";
import { DEFAULT_MAX_TRANSFER_KOBO } from "../ledger/kobo.js";
import { CBN_PAYOUT_FEE_CAPS, formatPayoutFeeTiers, parsePayoutFeeTiers } from "../ledger/payout-fees.js";
import { parseRetrySchedule } from "../webhooks/retry-schedule.js";

// The environment's variables, as one zod schema: every variable's rule and message in one
// place. load.ts turns what it parsed into the Config; provider.ts reads the bank's part.

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const integerString = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`);

/** A KYC tier's limits (accounts/tiers.ts): `single,daily,total` in kobo, each a number or `none`. */
const tierLimits = (tier: Tier) =>
  z
    .string()
    .transform((text, ctx) => {
      const limit = parseTierLimit(text);
      if (!limit) {
        ctx.addIssue({
          code: "custom",
          message: `TIER${tier}_LIMITS must be three values, single,daily,total, each whole kobo or none`,
        });
        return z.NEVER;
      }
      return limit;
    })
    .default(() => ({ ...CBN_TIER_LIMITS[tier] }));

const booleanString = (name: string) =>
  z
    .enum(["true", "false", "1", "0"], { error: `${name} must be true or false` })
    .transform((v) => v === "true" || v === "1");

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

export const envSchema = z.object({
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
  WEBHOOK_CONCURRENCY: integerString("WEBHOOK_CONCURRENCY", 1, 200).default(64),
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
  PAYOUT_STUCK_MINUTES: integerString("PAYOUT_STUCK_MINUTES", 1, 10_080).default(30),
  PAYOUT_CHECK_INTERVAL_MS: integerString("PAYOUT_CHECK_INTERVAL_MS", 10, 600_000).default(5_000),
  // Issue 46: NIBSS practice escalates a transfer still unresolved after a few status queries
  // (docs/bank-integration.md, "NIP session ids and response codes").
  PAYOUT_ATTENTION_QUERIES: integerString("PAYOUT_ATTENTION_QUERIES", 1, 100).default(5),
  // NIP response codes to read as unknown (asked about again) whatever the table says: "91,96".
  NIP_UNKNOWN_CODES: z
    .string()
    .regex(
      /^(\d{2}(,\d{2})*)?$/,
      "NIP_UNKNOWN_CODES must be two-digit codes separated by commas, such as 91,96",
    )
    .default(""),
  // The CBN's instant-transfer deadlines (2018; docs/deploy.md, "Deadlines"): a credit applied
  // later than this after the bank's paid time, a payout's money not back this long after its hold.
  DEADLINE_CREDIT_MINUTES: integerString("DEADLINE_CREDIT_MINUTES", 1, 1_440).default(4),
  DEADLINE_RETURN_HOURS: integerString("DEADLINE_RETURN_HOURS", 1, 720).default(24),
  // The caps a business's payout fee tiers stay within (issue 46): the CBN's unless set.
  PAYOUT_FEE_CAPS: z
    .string()
    .default(formatPayoutFeeTiers(CBN_PAYOUT_FEE_CAPS))
    .transform((text, ctx) => {
      try {
        return parsePayoutFeeTiers(text);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `PAYOUT_FEE_CAPS: ${(error as Error).message}` });
        return z.NEVER;
      }
    }),
  SETTLEMENT_COOL_OFF_HOURS: integerString("SETTLEMENT_COOL_OFF_HOURS", 0, 720).default(24),
  // How long an authenticator just set up moves no money (issue 43): 24 by default in
  // production, 0 in the sandbox (load.ts).
  MONEY_COOL_OFF_HOURS: integerString("MONEY_COOL_OFF_HOURS", 0, 720).optional(),
  SETTLEMENT_CHECK_INTERVAL_MS: integerString("SETTLEMENT_CHECK_INTERVAL_MS", 10, 3_600_000).default(5_000),
  SMTP_URL: z
    .url({
      protocol: /^smtps?$/,
      error: "SMTP_URL must be an smtp:// or smtps:// URL, like smtp://user:pass@mail.example.com:587",
    })
    .optional(),
  // A mail server that accepts the connection and never answers, or answers slowly, holds a send
  // no longer than these (issue 44); a timed-out send is tried again by the outbox's schedule.
  SMTP_CONNECT_TIMEOUT_MS: integerString("SMTP_CONNECT_TIMEOUT_MS", 100, 120_000).default(10_000),
  SMTP_GREETING_TIMEOUT_MS: integerString("SMTP_GREETING_TIMEOUT_MS", 100, 120_000).default(10_000),
  SMTP_COMMAND_TIMEOUT_MS: integerString("SMTP_COMMAND_TIMEOUT_MS", 100, 600_000).default(30_000),
  // How long the CLI and the console wait for a mail they just queued before saying it is queued.
  MAIL_WAIT_MS: integerString("MAIL_WAIT_MS", 0, 60_000).default(5_000),
  MAIL_FROM: z
    .string()
    .min(3)
    .max(200, "MAIL_FROM must be at most 200 characters")
    .default("Virtual Account Service <no-reply@vas.localhost>"),
  PUBLIC_URL: z
    .url({
      protocol: /^https?$/,
      error: "PUBLIC_URL must be an http:// or https:// URL, like https://vas.example.com",
    })
    .optional(),
  RECONCILE_INTERVAL_SECONDS: integerString("RECONCILE_INTERVAL_SECONDS", 1, 86_400).default(300),
  // Issue 46, item 6: a held credit neither accepted nor returned in this many days is returned
  // (docs/deploy.md: within the CBN's 14-working-day window for reversals).
  HELD_CREDIT_DAYS: integerString("HELD_CREDIT_DAYS", 1, 90).default(7),
  SANDBOX_PAYOUT_SETTLE_MS: integerString("SANDBOX_PAYOUT_SETTLE_MS", 0, 10_000).default(2_000),
  SANDBOX_PAYOUT_REVERSE_MS: integerString("SANDBOX_PAYOUT_REVERSE_MS", 0, 20_000).default(10_000),
  // Up to 10^12 kobo (NGN 10 billion): far below 2^53, so no sum of a few thousand overflows.
  MAX_TRANSFER_KOBO: integerString("MAX_TRANSFER_KOBO", 1, 1_000_000_000_000).default(
    DEFAULT_MAX_TRANSFER_KOBO,
  ),
  // Issue 46: what an account of each KYC tier may receive (the CBN's values by default).
  TIER1_LIMITS: tierLimits(1),
  TIER2_LIMITS: tierLimits(2),
  TIER3_LIMITS: tierLimits(3),
});

/** The environment as the schema parsed it (provider.ts reads the bank's part). */
export type ParsedEnvironment = z.infer<typeof envSchema>;
