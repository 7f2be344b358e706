import type { FastifyContextConfig, preValidationAsyncHookHandler } from "fastify";
import type { z } from "zod";
import type { Caller } from "../auth/authenticator.js";
import type { Actor } from "../core/actor.js";
import type { AccountDetail } from "../core/api-types.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { type Body, parsedBy } from "../core/validation.js";
import { ErrorCode } from "../errors.js";
import { actorOf, callerOf } from "./authenticate.js";
import { ACCOUNT_NUMBER_PARAMS, type ContractScope, ID_PARAMS } from "./contract-validation.js";
import {
  answersOf,
  EVERYWHERE,
  failure,
  headers,
  json,
  ok,
  PARAMETERS,
  pathParameter,
  RESPONSES,
  type RouteContract,
  SIGNED,
  STORAGE_UNAVAILABLE,
} from "./openapi-components.js";
import { answerOnce } from "./request-guard.js";

// What the signed write operations (webhooks, events, sandbox transfers, an account's update)
// share: their OpenAPI shape (signed, answered once per request and Idempotency-Key, JSON bodies)
// and how a route runs one.

export const ENDPOINT_ID_PARAMETER = pathParameter(
  "id",
  "The endpoint's id, as POST /webhooks answered it.",
  {
    type: "string",
    examples: ["we_0b8f1c2d3e4f5a6b7c8d9e0f1a2b3c4d"],
  },
);

export const EVENT_ID_PARAMETER = pathParameter(
  "id",
  "The event's id (the `webhook-id` of its deliveries).",
  {
    type: "string",
    examples: ["evt_1d7f0c2a4e8a4c559a570d2f4f1e9b1a"],
  },
);

export interface WriteOperation {
  operationId: string;
  summary: string;
  description: string;
  tag: "Accounts" | "Webhooks" | "Events" | "Sandbox" | "Collections";
  pathParameter?: unknown;
  /** The request body's component schema, if it takes one. */
  requestBody?: { schema: z.ZodType; required: boolean };
  success: { status: 200 | 201 | 202; description: string; schema: z.ZodType };
  notFound: { description: string; codes: ErrorCode[] };
  unprocessable?: { description: string; codes: ErrorCode[] };
}

/** The OpenAPI operation of a signed write answered once per request. */
export function writeOperation(o: WriteOperation) {
  const replayed = headers("Idempotent-Replayed");
  return {
    operationId: o.operationId,
    summary: o.summary,
    description: o.description,
    security: SIGNED,
    tags: [o.tag],
    parameters: [
      PARAMETERS.SignatureVersion,
      PARAMETERS.IdempotencyKey,
      ...(o.pathParameter ? [o.pathParameter] : []),
      PARAMETERS.RequestId,
    ],
    ...(o.requestBody
      ? {
          requestBody: {
            required: o.requestBody.required,
            content: json(o.requestBody.schema),
          },
        }
      : {}),
    responses: {
      [o.success.status]: ok(o.success.description, o.success.schema, "Idempotent-Replayed"),
      400: failure(
        400,
        "The body breaks a rule (`VALIDATION_FAILED`; the message names the field), is not a JSON object " +
          "(`INVALID_JSON`), the Idempotency-Key is malformed (`INVALID_IDEMPOTENCY_KEY`), or the HTTP layer " +
          "refused the request (`BAD_REQUEST`).",
        [
          ErrorCode.VALIDATION_FAILED,
          ErrorCode.INVALID_JSON,
          ErrorCode.INVALID_IDEMPOTENCY_KEY,
          ErrorCode.BAD_REQUEST,
        ],
        replayed,
      ),
      ...EVERYWHERE,
      404: failure(404, o.notFound.description, [ErrorCode.NOT_FOUND, ...o.notFound.codes], replayed),
      409: RESPONSES.RequestInProgress,
      413: RESPONSES.PayloadTooLarge,
      415: RESPONSES.UnsupportedMediaType,
      422: failure(
        422,
        `${o.unprocessable ? `${o.unprocessable.description}, or the` : "The"} Idempotency-Key came with another ` +
          "request (`IDEMPOTENCY_KEY_REUSED`).",
        [...(o.unprocessable?.codes ?? []), ErrorCode.IDEMPOTENCY_KEY_REUSED],
        replayed,
      ),
      503: STORAGE_UNAVAILABLE,
    },
  };
}

/** The body of a write that takes no fields: a JSON object (or nothing), whatever it holds. */
export const NO_FIELDS = parsedBy((): Record<string, never> => ({}));

/**
 * Registers the write route `contract` describes: Fastify checks its body against `body` (its
 * contract), its work runs as one unit of work with what the contract returned, and its answer
 * (the contract's one success, serialized from its schema) is stored for replays. The answer's
 * `data` is the work's result, or what `data` picks from it; `options` adds the route's own config
 * (a required Idempotency-Key) and a check before its body is read.
 */
export function writeRoute<B extends z.ZodType<unknown, Body>, T>(
  app: ContractScope,
  contract: RouteContract,
  body: B,
  work: (id: string, input: z.output<B>, business: Caller, unit: UnitOfWork) => Promise<T>,
  data: (result: T) => unknown = (result) => result,
  options: { config?: FastifyContextConfig; preValidation?: preValidationAsyncHookHandler } = {},
): void {
  const response = answersOf(contract);
  const [status, ...others] = Object.keys(response).map(Number);
  if (status === undefined || others.length > 0) {
    throw new Error(`${contract.method} ${contract.path} must describe exactly one success`);
  }
  const path = contract.path;
  app.route({
    method: contract.method.toUpperCase() as "POST" | "PATCH" | "DELETE",
    url: path,
    ...options,
    schema: { body, ...(path.includes(":id") ? { params: ID_PARAMS } : {}), response },
    handler: async (request, reply) => {
      // What the contract returned; the type provider cannot name a generic schema's output.
      const input = request.body as z.output<B>;
      const { id = "" } = request.params as { id?: string };
      return answerOnce<T>(
        request,
        reply,
        (unit) => work(id, input, callerOf(request), unit),
        (result) => ({ statusCode: status, body: { status: "success", data: data(result) } }),
      );
    },
  });
}

/**
 * Registers a write on one of the business's accounts (`contract`'s path names :accountNumber):
 * its body read by `body`, `work` run as one unit of work on the path's number, and the account
 * it answers sent as 200 and stored for replays.
 */
export function accountWriteRoute<B extends z.ZodType<unknown, Body>>(
  app: ContractScope,
  contract: RouteContract,
  body: B,
  work: (
    business: Caller,
    actor: Actor,
    accountNumber: string,
    input: z.output<B>,
    unit: UnitOfWork,
  ) => Promise<AccountDetail>,
): void {
  app.route({
    method: contract.method.toUpperCase() as "POST" | "PATCH",
    url: contract.path,
    schema: { params: ACCOUNT_NUMBER_PARAMS, body, response: answersOf(contract) },
    handler: async (request, reply) => {
      const { accountNumber } = request.params as { accountNumber: string };
      // What the contract returned; the type provider cannot name a generic schema's output.
      const input = request.body as z.output<B>;
      return answerOnce<AccountDetail>(
        request,
        reply,
        (unit) => work(callerOf(request), actorOf(request), accountNumber, input, unit),
        (account) => ({ statusCode: 200, body: { status: "success", data: account } }),
      );
    },
  });
}
