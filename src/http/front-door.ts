import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest, RawRequestDefaultExpression } from "fastify";
import type { Authenticator } from "../auth/authenticator.js";
import { validationFailed } from "../errors.js";
import type { RequestRecords } from "../idempotency/request-records.js";
import { authentication } from "./authenticate.js";
import { REQUEST_ID } from "./header-rules.js";
import { apiLimits, type RateLimitSettings } from "./rate-limit.js";
import { captureBodies, setAsideContentType } from "./request-body.js";
import { requestGuard } from "./request-guard.js";

// The front door: what every request meets before its route, as few hooks as the order allows,
// all of them here (issue 45's walks): the app's hooks (its id, the query's size, the body kept
// as received, the log line), then the API's (the address's limit; authentication, the key's
// limit and the replay guard, in that order, in one hook).

/** More query parameters than this is an attack or a bug, not a client of this API. */
export const MAX_QUERY_PARAMETERS = 20;

/** The request's id: the caller's `x-request-id` when it is a sensible one, else a new one. */
export function requestIdOf(request: RawRequestDefaultExpression): string {
  const inbound = request.headers["x-request-id"];
  return typeof inbound === "string" && REQUEST_ID.test(inbound) ? inbound : randomUUID();
}

/** Every request's hooks: one when it arrives, the one body parser, one log line when answered. */
export function registerFrontDoor(app: FastifyInstance, bodyLimitBytes: number): void {
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    const query = request.url.indexOf("?");
    if (query >= 0 && request.url.slice(query + 1).split("&").length > MAX_QUERY_PARAMETERS) {
      throw validationFailed(`At most ${MAX_QUERY_PARAMETERS} query parameters are accepted`);
    }
    setAsideContentType(request);
  });
  captureBodies(app, bodyLimitBytes);
  // One line per request, with no headers, query values or bodies.
  app.addHook("onResponse", async (request, reply) => {
    // Forged traffic is logged once a minute per address with a count (http/rate-limit.ts).
    if (request.loggedInAggregate) return;
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? "(no route)",
        statusCode: reply.statusCode,
        remoteAddress: request.ip,
        businessId: request.caller?.businessId,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      "request completed",
    );
  });
}

/** What the API's own door needs. */
export interface ApiDoor {
  authenticator: Authenticator;
  rateLimits: RateLimitSettings;
  requestRecords: RequestRecords;
}

/**
 * The API scope's hooks: the address's limit when the request arrives, then, before the route's
 * contract is checked, authentication, the key's limit and the replay guard's claim, in that
 * order (a caller learns nothing of the rules before it is authenticated, and a request refused
 * by its contract is stored for replays like any other answer).
 */
export function registerApiDoor(api: FastifyInstance, door: ApiDoor): void {
  const authenticate = authentication(api, door.authenticator);
  const limits = apiLimits(api, door.rateLimits);
  const guard = requestGuard(api, door.requestRecords);
  if (limits.perIp) api.addHook("onRequest", limits.perIp);
  const perKey = limits.perKey;
  api.addHook(
    "preValidation",
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      await authenticate(request);
      if (perKey) await perKey(request, reply);
      return guard(request, reply);
    },
  );
}
