import { z } from "zod";
import { ErrorCode } from "../errors.js";
import { Schemas } from "./answers.js";
import { failure, headers, json, PARAMETERS, RESPONSES } from "./openapi-parts.js";

export { failure, headers, json, PARAMETERS, RESPONSES };

// The reusable parts of a route's description: each route file holds its own operation (its
// `contract`), built from these, with its bodies and answers as the zod schemas of answers.ts;
// the route hands those answers to Fastify (`answersOf`), and openapi.ts makes the document's
// paths from the same contracts. openapi-document-components.ts holds the `components`.

/** One operation of the document, as the route that serves it declares it. */
export interface RouteContract {
  method: "get" | "post" | "patch" | "delete";
  /** The route's path under the API prefix, as registered with Fastify. */
  path: string;
  operation: { operationId: string; responses: Record<string, unknown> } & Record<string, unknown>;
  /** For a GET: the summary and description of the HEAD that Fastify answers beside it. */
  head?: { summary: string; description: string };
}

/** Every operation of the public API is signed with all three headers. */
export const SIGNED = [{ ApiKey: [], Timestamp: [], Signature: [] }];

/** A success response whose body is `schema` (one of answers.ts's): what the route answers. */
export function ok(description: string, schema: z.ZodType, ...extra: Array<"Idempotent-Replayed">) {
  return { description, headers: headers(...extra), content: json(schema) };
}

/**
 * A route's answers by status, for its `schema.response`: every success its contract describes
 * (failures are the error handler's, one envelope for all).
 */
export function answersOf(contract: RouteContract): Record<number, z.ZodType> {
  const answers: Record<number, z.ZodType> = {};
  for (const [status, response] of Object.entries(contract.operation.responses)) {
    const content = (response as { content?: Record<string, { schema?: unknown }> }).content;
    const schema = content?.["application/json"]?.schema;
    if (Number(status) < 300 && schema instanceof z.ZodType) answers[Number(status)] = schema;
  }
  return answers;
}

/** The failures every signed operation may answer. */
export const EVERYWHERE = {
  401: RESPONSES.Unauthorized,
  404: RESPONSES.NotFound,
  429: RESPONSES.RateLimited,
  431: RESPONSES.HeadersTooLarge,
  500: RESPONSES.InternalError,
};

/** The 503 of an operation whose only way to fail with 503 is the database. */
export const STORAGE_UNAVAILABLE = failure(
  503,
  "The database is unreachable (`SERVICE_UNAVAILABLE`): nothing changed, retry.",
  [ErrorCode.SERVICE_UNAVAILABLE],
  headers("Retry-After"),
);

/** What a read asked of the partner bank (its bank list, name enquiry) answers when it cannot. */
export const BANK_UNAVAILABLE = failure(
  502,
  "The partner bank could not be reached or answered outside its protocol (`PROVIDER_UNAVAILABLE`): retry later.",
  [ErrorCode.PROVIDER_UNAVAILABLE],
);

/** A parameter in the path, `{name}` in the document (`:name` where Fastify registers it). */
export function pathParameter(name: string, description: string, schema: Record<string, unknown>) {
  return { name, in: "path", required: true, description, schema };
}

/** The account number in the path of the account routes. */
export const ACCOUNT_NUMBER_PARAMETER = pathParameter(
  "accountNumber",
  "The account's current 10-digit number. A number retired by a re-issue is 404 `ACCOUNT_NOT_FOUND`; " +
    "a segment that is not 10 digits matches no route (404 `NOT_FOUND`).",
  { type: "string", pattern: "^\\d{10}$", examples: ["0184421779"] },
);

/** What every signed read (a GET) may answer besides its success. */
export function readFailures(
  notFound: string,
  codes: ErrorCode[] = [],
  badRequest = "More than 20 query parameters (`VALIDATION_FAILED`), or the HTTP layer refused the request " +
    "(`BAD_REQUEST`).",
) {
  return {
    400: failure(400, badRequest, [ErrorCode.VALIDATION_FAILED, ErrorCode.BAD_REQUEST]),
    ...EVERYWHERE,
    404: failure(404, notFound, [ErrorCode.NOT_FOUND, ...codes]),
    503: STORAGE_UNAVAILABLE,
  };
}

/** The parameters of a signed GET: the signature version and the request id, and `extra`. */
export function readParameters(...extra: unknown[]) {
  return [PARAMETERS.SignatureVersion, ...extra, PARAMETERS.RequestId];
}

/** A deactivate or reactivate operation: a signed POST without a body, answering the account. */
export function lifecycleOperation(operationId: string, summary: string, description: string) {
  return {
    operationId,
    summary,
    description: `${description} Send no body (an empty body, or \`{}\`, is accepted and ignored).`,
    security: SIGNED,
    tags: ["Accounts"],
    parameters: [
      PARAMETERS.SignatureVersion,
      PARAMETERS.IdempotencyKey,
      ACCOUNT_NUMBER_PARAMETER,
      PARAMETERS.RequestId,
    ],
    responses: {
      200: ok("The account, as it now is.", Schemas.AccountDetailResponse, "Idempotent-Replayed"),
      400: failure(
        400,
        "The bank refused (`PROVIDER_REJECTED`), the " +
          "Idempotency-Key is malformed (`INVALID_IDEMPOTENCY_KEY`), or the HTTP layer refused the request " +
          "(`BAD_REQUEST`).",
        [ErrorCode.PROVIDER_REJECTED, ErrorCode.INVALID_IDEMPOTENCY_KEY, ErrorCode.BAD_REQUEST],
        headers("Idempotent-Replayed"),
      ),
      ...EVERYWHERE,
      404: failure(
        404,
        "No route (`NOT_FOUND`), or no current account of the calling business has this number (`ACCOUNT_NOT_FOUND`).",
        [ErrorCode.NOT_FOUND, ErrorCode.ACCOUNT_NOT_FOUND],
        headers("Idempotent-Replayed"),
      ),
      409: RESPONSES.RequestInProgress,
      413: RESPONSES.PayloadTooLarge,
      415: RESPONSES.UnsupportedMediaType,
      422: failure(
        422,
        "A temporary account (`ACCOUNT_NOT_PERMANENT`), or the Idempotency-Key came with another request " +
          "(`IDEMPOTENCY_KEY_REUSED`).",
        [ErrorCode.ACCOUNT_NOT_PERMANENT, ErrorCode.IDEMPOTENCY_KEY_REUSED],
        headers("Idempotent-Replayed"),
      ),
      502: RESPONSES.ProviderUnavailable,
      503: STORAGE_UNAVAILABLE,
    },
  };
}

/** What the two generate operations share: signing, parameters and the JSON body `schema`. */
export function generateOperation(schema: z.ZodType) {
  return {
    security: SIGNED,
    tags: ["Accounts"],
    parameters: [PARAMETERS.SignatureVersion, PARAMETERS.IdempotencyKey, PARAMETERS.RequestId],
    requestBody: { required: true, content: json(schema) },
  };
}

/** The failures of the two generate operations. */
export const GENERATE_FAILURES = {
  400: failure(
    400,
    "The body breaks a rule (`VALIDATION_FAILED`; the message names the field), is not a JSON object " +
      "(`INVALID_JSON`), the bank refused the customer (`PROVIDER_REJECTED`, with the bank's own message), " +
      "the Idempotency-Key is malformed (`INVALID_IDEMPOTENCY_KEY`), or the HTTP layer refused the " +
      "request (`BAD_REQUEST`).",
    [
      ErrorCode.VALIDATION_FAILED,
      ErrorCode.INVALID_JSON,
      ErrorCode.PROVIDER_REJECTED,
      ErrorCode.INVALID_IDEMPOTENCY_KEY,
      ErrorCode.BAD_REQUEST,
    ],
    headers("Idempotent-Replayed"),
  ),
  ...EVERYWHERE,
  409: RESPONSES.RequestInProgress,
  413: RESPONSES.PayloadTooLarge,
  415: RESPONSES.UnsupportedMediaType,
  422: failure(
    422,
    "The bank's record of the BVN or NIN is in another name than the customer's (`IDENTITY_MISMATCH`, " +
      "issue 46), or this Idempotency-Key was already used for another endpoint or body " +
      "(`IDEMPOTENCY_KEY_REUSED`).",
    [ErrorCode.IDENTITY_MISMATCH, ErrorCode.IDEMPOTENCY_KEY_REUSED],
    headers("Idempotent-Replayed"),
  ),
  502: RESPONSES.ProviderUnavailable,
  503: failure(
    503,
    "The database is unreachable (`SERVICE_UNAVAILABLE`, with `Retry-After`: nothing changed, retry) or " +
      "every account number has been issued (`NUMBER_SPACE_EXHAUSTED`).",
    [ErrorCode.SERVICE_UNAVAILABLE, ErrorCode.NUMBER_SPACE_EXHAUSTED],
    headers("Retry-After"),
  ),
};
