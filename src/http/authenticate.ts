import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Authenticator, Caller } from "../auth/authenticator.js";
import type { Actor } from "../core/actor.js";
import { receivedBody } from "./request-body.js";

declare module "fastify" {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/**
 * Authenticates a request of the API before its body is looked at (the front door runs it first
 * in preValidation, after the body is read but before anything judges it).
 */
export function authentication(app: FastifyInstance, authenticator: Authenticator) {
  app.decorateRequest("caller", undefined);
  return async (request: FastifyRequest): Promise<void> => {
    request.caller = await authenticator.authenticate({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: receivedBody(request),
    });
  };
}

/** The authenticated caller; routes of an authenticated scope always have one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error("route reached without authentication");
  return request.caller;
}

/** Who acts, for the domain: the API key the request was signed with. */
export function actorOf(request: FastifyRequest): Actor {
  return { type: "api_key", id: callerOf(request).keyId };
}
