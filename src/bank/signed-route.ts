import type { KeyObject } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { BANK_PATHS, RESP_CODE } from "../providers/bank-protocol.js";
import { isFreshMessage, type ProtocolValue, verifyParams } from "../providers/bank-signing.js";
import { answer, type answerOf } from "./answers.js";
import type { FaultPlan } from "./faults.js";

// The Virtual Bank server's signed API routes: how each call of the bank protocol is received
// (counted, faults, the caller, the body) before its handler, and answered after it.

/** A handler's answer in the protocol's envelope. */
export type BankAnswer = ReturnType<typeof answerOf>;

/**
 * Registers a signed API route: faults first, then the caller, then the body, then the handler.
 * `withFaults` false spares it the faults.
 */
export type SignedRoute = <T extends z.ZodTypeAny>(
  url: string,
  schema: T,
  handle: (params: z.infer<T>) => Promise<BankAnswer>,
  withFaults?: boolean,
) => void;

export interface SignedRouteOptions {
  /** The service's app id: the bearer every call carries. */
  appId: string;
  /** The service's public key: verifies every call. */
  clientKey: KeyObject;
  faults: FaultPlan;
}

/**
 * How the bank's app registers its signed routes, and the API calls received per route, whatever
 * their outcome (GET /sandbox/calls): what tests and integrators check to see a retry, a query
 * before it, or no call at all.
 */
export function signedRoutes(
  app: FastifyInstance,
  { appId, clientKey, faults }: SignedRouteOptions,
): { route: SignedRoute; calls: Record<string, number> } {
  /** The caller must be the service: its app id, its signature, a fresh requestTime. */
  const refusal = (request: FastifyRequest): [string, string] | undefined => {
    if (request.headers.authorization !== `Bearer ${appId}`) {
      return [RESP_CODE.unknownApp, "unknown app id"];
    }
    const body = request.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return [RESP_CODE.invalidParameter, "the body must be a JSON object"];
    }
    const params = body as Record<string, ProtocolValue>;
    if (!verifyParams(params, request.headers.signature, clientKey)) {
      return [RESP_CODE.badSignature, "the signature does not verify"];
    }
    if (!isFreshMessage(params.requestTime, Date.now())) {
      return [RESP_CODE.expired, "requestTime is more than 5 minutes from the bank's clock"];
    }
    return undefined;
  };

  const calls: Record<string, number> = Object.fromEntries(Object.keys(BANK_PATHS).map((name) => [name, 0]));
  const routeNames = new Map(Object.entries(BANK_PATHS).map(([name, url]) => [url as string, name]));

  const route: SignedRoute = (url, schema, handle, withFaults = true) => {
    app.post(url, async (request, reply) => {
      const name = routeNames.get(url);
      if (name) calls[name] = (calls[name] ?? 0) + 1;
      const { latencyMs } = withFaults ? faults.get() : { latencyMs: 0 };
      if (latencyMs > 0) await sleep(latencyMs);
      if (withFaults && faults.take("failNext"))
        return reply.code(500).send({ respCode: RESP_CODE.busy, respMsg: "injected failure" });
      const refused = refusal(request);
      if (refused) return answer(reply, ...refused);
      const parsed = schema.safeParse(request.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return answer(
          reply,
          RESP_CODE.invalidParameter,
          `${issue?.path.join(".") || "body"}: ${issue?.message}`,
        );
      }
      const hang = withFaults && faults.take("hangNext");
      const result = await handle(parsed.data);
      if (!hang) return reply.code(200).send(result);
      // Acted on, then never answered: the connection is held until the caller gives up.
      reply.hijack();
      await new Promise((resolve) => request.raw.socket.once("close", resolve));
      return undefined;
    });
  };
  return { route, calls };
}
