import fastifyRateLimit, { normalizeIP } from "@fastify/rate-limit";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import { rateLimited } from "../errors.js";
import { callerOf } from "./authenticate.js";

/** Requests per minute; 0 turns a limit off. */
export interface RateLimitSettings {
  perKeyPerMinute: number;
  perIpPerMinute: number;
  /** Bank notifications without a valid signature per client address (see failureGuard). */
  badBankSignaturesPerMinute: number;
  /** Shared counters for all processes; without it each process counts on its own. */
  redis?: Redis;
  /** Prefix of the counters' keys in Redis. */
  namespace?: string;
}

const MINUTE_MS = 60_000;

/**
 * A Redis client for the shared counters. Commands fail fast while Redis is unreachable (no
 * offline queue): the limiter then lets requests through, and the client keeps reconnecting.
 */
export async function connectRedis(url: string, onError: (error: Error) => void): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
  });
  redis.on("error", onError);
  await redis.connect().catch(onError);
  return redis;
}

/**
 * Registers @fastify/rate-limit's counters (fixed one-minute windows, in Redis when given). If
 * Redis fails the request is let through: the limit is a guard against abuse, not a reason to
 * refuse paying customers.
 */
export function registerRateLimiting(app: FastifyInstance, settings: RateLimitSettings): void {
  app.register(fastifyRateLimit, {
    global: false,
    skipOnError: true,
    ...(settings.redis ? { redis: settings.redis, nameSpace: settings.namespace ?? "vas:rate-limit:" } : {}),
  });
}

/**
 * The API's limits, for the front door to run: per client address when the request arrives
 * (looser; it protects the authentication itself), per API key once it is authenticated, before
 * the replay guard. Both count through the plugin's `createRateLimit` (its own hook runs one
 * limiter per request). A limit of 0 has none.
 */
export function apiLimits(scope: FastifyInstance, settings: RateLimitSettings) {
  return {
    perIp:
      settings.perIpPerMinute > 0
        ? limiter(scope, settings.perIpPerMinute, (request) => `ip:${request.ip}`)
        : undefined,
    perKey:
      settings.perKeyPerMinute > 0
        ? limiter(scope, settings.perKeyPerMinute, (request) => `key:${callerOf(request).keyId}`)
        : undefined,
  };
}

function limiter(scope: FastifyInstance, max: number, keyGenerator: (request: FastifyRequest) => string) {
  const check = scope.createRateLimit({ max, timeWindow: MINUTE_MS, keyGenerator });
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const result = await check(request);
    // Allowed outright: the counter store failed (skipOnError lets the request through).
    if (result.isAllowed) return;
    reply.header("ratelimit-limit", result.max);
    reply.header("ratelimit-remaining", result.remaining);
    reply.header("ratelimit-reset", result.ttlInSeconds);
    if (result.isExceeded) {
      reply.header("retry-after", result.ttlInSeconds);
      throw rateLimited(Math.max(1, result.ttlInSeconds));
    }
  };
}

declare module "fastify" {
  interface FastifyRequest {
    /** Counted in an aggregated log line (failureGuard) instead of a "request completed" line of its own. */
    loggedInAggregate?: boolean;
  }
}

/** Failures counted per client address: refused past a limit, and logged in aggregate. */
export interface FailureGuard {
  /**
   * An onRequest hook: an address with `perMinute` failures in its current minute gets a 429
   * with Retry-After, before its body is read or anything is checked.
   */
  check(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts a failure against the request's address. */
  fail(request: FastifyRequest): Promise<void>;
}

export interface FailureGuardOptions {
  /** Names the counters (in Redis: under the rate limits' namespace). */
  name: string;
  /** Failures per address per minute before it is refused; 0: counted and logged, never refused. */
  perMinute: number;
  /** The aggregated line's message (`warn`, with `remoteAddress`, `count` and `rateLimited`). */
  message: string;
}

/**
 * Limits and logs what an unauthenticated sender gets wrong, so that forged traffic can neither
 * keep the service busy checking signatures nor flood the log. The counters are
 * @fastify/rate-limit's (fixed one-minute windows, in Redis when the app has it), read before
 * the request and incremented only by a failure, so good traffic from an address is never
 * counted. Concurrent requests can each pass the read before any failure is counted: the limit is
 * exact for a sender that waits for its answers, and overshoots by at most the requests in flight.
 * `scope` must be one in which registerRateLimiting's plugin has loaded.
 */
export function failureGuard(scope: FastifyInstance, options: FailureGuardOptions): FailureGuard {
  const lines = new CountedWarnings(scope.log, options.message);
  const timer = setInterval(() => lines.flush(), MINUTE_MS).unref();
  scope.addHook("onClose", async () => {
    clearInterval(timer);
    lines.flush();
  });
  if (!scope.hasRequestDecorator("loggedInAggregate")) scope.decorateRequest("loggedInAggregate", false);
  const counter =
    options.perMinute > 0
      ? scope.createRateLimit({
          max: options.perMinute,
          timeWindow: MINUTE_MS,
          keyGenerator: (request) => `${options.name}:${clientAddress(request)}`,
        })
      : undefined;
  return {
    async check(request, reply) {
      if (!counter) return;
      const seen = await counter(request, { increment: false });
      // The counter store failed (skipOnError) or the address has failures to spare.
      if (seen.isAllowed || seen.remaining > 0) return;
      request.loggedInAggregate = true;
      lines.note(clientAddress(request), true);
      const seconds = Math.max(1, seen.ttlInSeconds);
      reply.header("retry-after", seconds);
      throw rateLimited(seconds);
    },
    async fail(request) {
      request.loggedInAggregate = true;
      lines.note(clientAddress(request), false);
      await counter?.(request);
    },
  };
}

/** IPv6 addresses by their /64, as the plugin's own default: one host holds a whole /64. */
const clientAddress = (request: FastifyRequest) => normalizeIP(request.ip);

/** Addresses tracked at once; past it, new ones share one line, so the log stays bounded. */
const MAX_ADDRESSES = 1_000;
const OTHER_ADDRESSES = "(other addresses)";

/**
 * One warn line per address per minute with a count. An address's first failure is logged at
 * once (an attack shows when it starts), the rest once a minute and at close; an address quiet
 * for a whole minute is forgotten, so its next failure is logged at once again.
 */
class CountedWarnings {
  private readonly counts = new Map<string, { count: number; rateLimited: number }>();

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly message: string,
  ) {}

  note(address: string, rateLimited: boolean): void {
    const key = this.counts.has(address) || this.counts.size < MAX_ADDRESSES ? address : OTHER_ADDRESSES;
    const counted = this.counts.get(key);
    if (counted) {
      counted.count += 1;
      if (rateLimited) counted.rateLimited += 1;
      return;
    }
    this.counts.set(key, { count: 0, rateLimited: 0 });
    this.log.warn({ remoteAddress: key, count: 1, rateLimited: rateLimited ? 1 : 0 }, this.message);
  }

  flush(): void {
    for (const [address, counted] of this.counts) {
      if (counted.count === 0) {
        this.counts.delete(address);
        continue;
      }
      this.log.warn({ remoteAddress: address, ...counted }, this.message);
      counted.count = 0;
      counted.rateLimited = 0;
    }
  }
}
