import fastifyRateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import { rateLimited } from "../errors.js";

/** Requests per minute; 0 turns a limit off. */
export interface RateLimitSettings {
  perKeyPerMinute: number;
  perIpPerMinute: number;
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
 * Adds the limits to a scope: per client IP before authentication (looser; it protects the
 * authentication itself), per API key after it. The plugin's own hook runs one limiter per
 * request, so both are applied here through its `createRateLimit` counters.
 */
export function applyRateLimits(scope: FastifyInstance, settings: RateLimitSettings): void {
  if (settings.perIpPerMinute > 0) {
    scope.addHook(
      "onRequest",
      limiter(scope, settings.perIpPerMinute, (request) => `ip:${request.ip}`),
    );
  }
  if (settings.perKeyPerMinute > 0) {
    scope.addHook(
      "preHandler",
      limiter(scope, settings.perKeyPerMinute, (request) => `key:${request.caller?.keyId}`),
    );
  }
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
