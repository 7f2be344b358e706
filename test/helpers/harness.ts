import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import type { DestinationStream } from "pino";
import { buildApp } from "../../src/app.js";
import { sign } from "../../src/auth/signature.js";
import type { DatabaseLocation } from "../../src/config.js";
import type { RateLimitSettings } from "../../src/http/rate-limit.js";
import type { AccountProvider } from "../../src/providers/account-provider.js";
import { openServices, type Services } from "../../src/services.js";
import type { Storage, StorageOptions } from "../../src/storage/database.js";
import type { VerificationStatus } from "../../src/storage/schema.js";
import { createTestDatabase, type TestDialect } from "./databases.js";

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
  method?: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
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
  provider?: (defaults: { storage: Storage; permutationKey: Buffer }) => AccountProvider;
  /** Which database to create (default SQLite); ignored when `database` is given. */
  dialect?: TestDialect;
  /** An existing database to use instead of a new one. */
  database?: DatabaseLocation;
  masterKey?: Buffer;
  logStream?: DestinationStream;
  now?: () => number;
  requestTimeoutMs?: number;
  /** Passed to openStorage (a short SQLite busy timeout, say). */
  storageOptions?: StorageOptions;
  /** The body size limit (default BODY_LIMIT, the service's default). */
  bodyLimitBytes?: number;
  /** Off unless a test is about them (the suites send hundreds of requests from one address). */
  rateLimits?: RateLimitSettings;
}

/** A fresh database of the dialect asked for and the app built exactly as main.ts builds it. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-test-"));
  const created = options.database ? undefined : await createTestDatabase(options.dialect ?? "sqlite", dir);
  const database = options.database ?? (created?.location as DatabaseLocation);
  const services = await openServices({
    database,
    masterKey: options.masterKey ?? randomBytes(32),
    institutionCode: "999240",
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.storageOptions ? { storageOptions: options.storageOptions } : {}),
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

/** The app over the given services, built as main.ts builds it (a second "process" in tests). */
export function appFor(
  services: Services,
  options: Pick<HarnessOptions, "rateLimits" | "requestTimeoutMs" | "logStream" | "bodyLimitBytes"> = {},
): FastifyInstance {
  return buildApp({
    authenticator: services.authenticator,
    accounts: services.accounts,
    requestRecords: services.requestRecords,
    rateLimits: options.rateLimits ?? { perKeyPerMinute: 0, perIpPerMinute: 0 },
    db: services.storage.db,
    bodyLimitBytes: options.bodyLimitBytes ?? BODY_LIMIT,
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
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
