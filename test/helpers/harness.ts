import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import type { DestinationStream } from "pino";
import { permanentInput, temporaryInput } from "../../src/accounts/validation.js";
import { sign } from "../../src/auth/signature.js";
import { buildServerApp } from "../../src/compose/server.js";
import { type Clock, type Overrides, openServices, type Services } from "../../src/compose/services.js";
import { type Config, type DatabaseLocation, loadConfig } from "../../src/config/load.js";
import { CLI } from "../../src/core/actor.js";
import type { VerificationStatus } from "../../src/core/business-states.js";
import { check } from "../../src/core/validation.js";
import type { Storage } from "../../src/storage/database.js";
import type { NewEndpoint } from "../../src/webhooks/endpoint-inputs.js";
import { createTestDatabase, databaseUrl, type TestDatabaseKind, type TestDialect } from "./databases.js";

export const API = "/api/v1/external";
export const BODY_LIMIT = 16_384;

export interface TestBusiness {
  businessId: string;
  keyId: string;
  name: string;
  apiKey: string;
  secretKey: string;
}

export interface SignedRequest {
  method?: "GET" | "HEAD" | "POST" | "PUT" | "DELETE" | "PATCH";
  url: string;
  /** An object is sent as JSON.stringify(body); a string is sent as is. */
  body?: unknown;
  as: Pick<TestBusiness, "apiKey" | "secretKey">;
  timestamp?: number | string;
  /** Overrides the computed signature. */
  signature?: string;
  headers?: Record<string, string | undefined>;
  /** What the signature covers, when it should not be the body sent. */
  signedPayload?: string;
}

export interface Harness {
  dialect: TestDialect;
  database: DatabaseLocation;
  app: FastifyInstance;
  services: Services;
  storage: Storage;
  dir: string;
  createBusiness(options?: { name?: string; status?: VerificationStatus }): Promise<TestBusiness>;
  request(options: SignedRequest): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  provider?: Overrides["provider"];
  /** Which database to create (default SQLite); ignored when `database` is given. */
  dialect?: TestDatabaseKind;
  /** An existing database to use instead of a new one. */
  database?: DatabaseLocation;
  masterKey?: Buffer;
  logStream?: DestinationStream;
  /** The service's clock, and the one requests are signed with. */
  now?: Clock;
  /** More environment, exactly as an operator would set it (`REQUEST_TIMEOUT_MS`, ...). */
  env?: Record<string, string>;
  /** Off unless a test is about them (the suites send hundreds of requests from one address). */
  rateLimits?: { perKeyPerMinute: number; perIpPerMinute: number };
}

/**
 * KYC tiers' limits off (issue 46): the suites pay sums far past a tier 1 account's into their
 * accounts; the tiers' suite (test/identity-tiers.test.ts) sets them itself.
 */
export const TIER_LIMITS_OFF = {
  TIER1_LIMITS: "none,none,none",
  TIER2_LIMITS: "none,none,none",
  TIER3_LIMITS: "none,none,none",
};

/**
 * The configuration a test server runs with: what loadConfig makes of this environment, as
 * for a real process. Rate limits are off and private webhook addresses allowed unless asked for.
 */
export function testConfig(
  database: DatabaseLocation,
  masterKey: Buffer,
  env: Record<string, string> = {},
): Config {
  return loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: databaseUrl(database),
    VAS_MASTER_KEY: masterKey.toString("hex"),
    RATE_LIMIT_PER_KEY_PER_MIN: "0",
    RATE_LIMIT_PER_IP_PER_MIN: "0",
    LOG_LEVEL: "silent",
    // The suites' webhook receivers listen on loopback.
    WEBHOOK_ALLOW_PRIVATE: "true",
    ...TIER_LIMITS_OFF,
    ...env,
  });
}

/** A fresh database of the dialect asked for and the app built through the one composition path. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-test-"));
  const created = options.database ? undefined : await createTestDatabase(options.dialect ?? "sqlite", dir);
  const database = options.database ?? (created?.location as DatabaseLocation);
  const config = testConfig(database, options.masterKey ?? randomBytes(32), {
    DATA_DIR: dir,
    ...(options.rateLimits
      ? {
          RATE_LIMIT_PER_KEY_PER_MIN: String(options.rateLimits.perKeyPerMinute),
          RATE_LIMIT_PER_IP_PER_MIN: String(options.rateLimits.perIpPerMinute),
        }
      : {}),
    ...options.env,
  });
  const services = await openServices(config, {
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const app = appFor(services, options);
  await app.ready();
  return {
    dialect: database.dialect,
    database,
    app,
    services,
    storage: services.storage,
    dir,
    async createBusiness({ name = "Acme Stores", status = "completed" } = {}) {
      const created = await services.businesses.createBusiness(name, status);
      return {
        businessId: created.business.id,
        keyId: created.keyId,
        name: created.business.name,
        apiKey: created.apiKey,
        secretKey: created.secretKey,
      };
    },
    request: (request) => signedInject(app, request, options.now),
    async close() {
      await app.close();
      await services.close();
      await created?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The app over the given services, as the server builds it (a second "process" in tests). */
export function appFor(services: Services, options: Pick<HarnessOptions, "logStream"> = {}): FastifyInstance {
  return buildServerApp(services, {
    logger: options.logStream ? { level: "info", stream: options.logStream } : { level: "silent" },
  });
}

/** Sends a request signed the way the docs tell integrators to sign. */
export function signedInject(
  app: FastifyInstance,
  request: SignedRequest,
  now: () => number = Date.now,
): Promise<LightMyRequestResponse> {
  const method = request.method ?? (request.body === undefined ? "GET" : "POST");
  const payload =
    request.body === undefined
      ? undefined
      : typeof request.body === "string"
        ? request.body
        : JSON.stringify(request.body);
  const timestamp = String(request.timestamp ?? now());
  const signed = request.signedPayload ?? payload ?? "{}";
  const headers: Record<string, string> = {
    "x-api-key": request.as.apiKey,
    "x-timestamp": timestamp,
    "x-signature": request.signature ?? sign(request.as.secretKey, signed, timestamp),
    ...(payload === undefined ? {} : { "content-type": "application/json" }),
  };
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return app.inject({ method, url: request.url, headers, ...(payload === undefined ? {} : { payload }) });
}

/** A valid generate body; fields can be overridden or removed (set to undefined). */
export function customer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: "Ada Obi",
    email: `ada.${randomBytes(4).toString("hex")}@example.com`,
    bvn: "22345678901",
    ...overrides,
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
}

/** A generate body read as the contract reads it: what the domain takes. */
export const permanentInputOf = (overrides: Record<string, unknown> = {}) =>
  check(permanentInput, customer(overrides));

/** A temporary account's body read as the contract reads it (the default MAX_TRANSFER_KOBO). */
export const temporaryInputOf = (overrides: Record<string, unknown> = {}) =>
  check(temporaryInput(), customer(overrides));

/** A new endpoint at `url` for every event type, as the contract reads `{url}` (test receivers are loopback: no address policy here). */
export const endpointAt = (url: string): NewEndpoint => ({ url: new URL(url).toString(), events: null });

/** The environment of a fixture process (test/fixtures/) that opens the harness's database with its key. */
export const fixtureEnv = (h: Pick<Harness, "database" | "dir">, masterKey: Buffer) => ({
  ...process.env,
  NODE_ENV: "test",
  DATABASE_URL: databaseUrl(h.database),
  VAS_MASTER_KEY: masterKey.toString("hex"),
  DATA_DIR: h.dir,
  LOG_LEVEL: "silent",
});

/** Verifies a business signed up in the dashboard: its details submitted, then approved by an operator (the CLI). */
export async function verifyBusiness(services: Harness["services"], businessId: string): Promise<void> {
  await services.profiles.submit(businessId, CLI, {
    registeredName: "Verified Trading Limited",
    rcNumber: "RC1234567",
    address: "12 Marina Road, Lagos Island, Lagos",
    contactName: "Kola Adeyemi",
    contactEmail: "kola@verified.example",
    contactPhone: "+2348031234567",
  });
  await services.businesses.setVerificationStatus(businessId, "completed", CLI);
}
