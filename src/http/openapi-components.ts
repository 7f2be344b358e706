import { z } from "zod";
import {
  accountDetailSchema,
  accountSummarySchema,
  listQuerySchema,
  paginationSchema,
  permanentAccountSchema,
  permanentRequestSchema,
  temporaryAccountSchema,
  temporaryRequestSchema,
} from "../accounts/api-schemas.js";
import { EMPTY_BODY, TIMESTAMP_TOLERANCE_MS } from "../auth/signature.js";
import {
  balanceQuerySchema,
  balanceSchema,
  sandboxTransferRequestSchema,
  transactionQuerySchema,
  transactionSchema,
} from "../collections/api-schemas.js";
import { ErrorCode } from "../errors.js";
import { eventQuerySchema, eventSchema } from "../events/api-schemas.js";
import { IDEMPOTENCY_TTL_MS } from "../idempotency/request-records.js";
import {
  attemptSchema,
  createEndpointRequestSchema,
  endpointSchema,
  endpointWithSecretSchema,
  queuedSchema,
  recoverRequestSchema,
  redeliverRequestSchema,
  testEventSchema,
  updateEndpointRequestSchema,
} from "../webhooks/api-schemas.js";
import { IDEMPOTENCY_KEY, REQUEST_ID } from "./header-rules.js";

// The reusable parts of the OpenAPI document. Each route file holds its own operation (its
// `contract`), built from these; openapi.ts assembles the paths from those contracts.

/** The docs' worked example of a signature (test/openapi.test.ts recomputes it). */
export const SIGNING_EXAMPLE = {
  secretKey: "vsk_example0SecretKeyForDocsOnly0000000000000",
  body: '{"name":"Ada Obi","email":"ada@example.com","bvn":"22345678901"}',
  timestamp: "1767225600000",
  signature: "b512160a0d194161f518ad3a11becf47ee57007dc495aa2680cfd48a0a56ec4d",
};

const failSchema = z
  .strictObject({
    status: z.literal("fail"),
    message: z.string().meta({ description: "Human-readable; validation messages name the field." }),
    error: z.strictObject({
      statusCode: z.int().min(400).max(599).meta({ description: "The HTTP status, repeated." }),
      name: z.literal("AppError"),
      code: z.enum(ErrorCode).meta({ description: "Stable machine-readable code: branch on this." }),
    }),
  })
  .meta({ description: "Every deliberate failure (4xx, 502, 503)." });

const internalErrorSchema = z
  .strictObject({
    status: z.literal("fail"),
    error: z
      .string()
      .meta({ examples: ["Internal server error (request id 5f0c2a4e-8a8e-4c55-9a57-0d2f4f1e9b1a)"] }),
    requestId: z
      .string()
      .meta({ description: "The request id; the details are in the server's log under it." }),
  })
  .meta({ description: "An unexpected failure: `error` is a string and there is no `message`." });

const success = <T extends z.ZodType>(data: T) => z.strictObject({ status: z.literal("success"), data });

/** A list's answer: one page of `item`s, newest first, and where the page sits. */
const page = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    status: z.literal("success"),
    data: z.array(item).meta({ description: "Newest first." }),
    pagination: paginationSchema,
  });

/** Component schemas, named; references between them become `$ref`s. */
function componentSchemas(): Record<string, unknown> {
  const named = z.registry<{ id: string }>();
  const add = (schema: z.ZodType, id: string) => named.add(schema, { id });
  add(permanentRequestSchema, "PermanentAccountRequest");
  add(temporaryRequestSchema, "TemporaryAccountRequest");
  add(permanentAccountSchema, "PermanentAccount");
  add(temporaryAccountSchema, "TemporaryAccount");
  add(accountSummarySchema, "AccountSummary");
  add(paginationSchema, "Pagination");
  add(success(permanentAccountSchema), "PermanentAccountResponse");
  add(success(temporaryAccountSchema), "TemporaryAccountResponse");
  add(page(accountSummarySchema), "AccountListResponse");
  add(accountDetailSchema, "AccountDetail");
  add(success(accountDetailSchema), "AccountDetailResponse");
  add(transactionSchema, "Transaction");
  add(success(transactionSchema), "TransactionResponse");
  add(page(transactionSchema), "TransactionListResponse");
  add(balanceSchema, "Balance");
  add(success(balanceSchema), "BalanceResponse");
  add(sandboxTransferRequestSchema, "SandboxTransferRequest");
  add(endpointSchema, "WebhookEndpoint");
  add(success(endpointSchema), "WebhookEndpointResponse");
  add(success(endpointWithSecretSchema), "WebhookEndpointWithSecretResponse");
  add(
    z.strictObject({ status: z.literal("success"), data: z.array(endpointSchema).max(10) }),
    "WebhookEndpointListResponse",
  );
  add(createEndpointRequestSchema, "CreateWebhookEndpointRequest");
  add(updateEndpointRequestSchema, "UpdateWebhookEndpointRequest");
  add(redeliverRequestSchema, "RedeliverRequest");
  add(recoverRequestSchema, "RecoverRequest");
  add(success(queuedSchema), "QueuedResponse");
  add(success(testEventSchema), "TestEventResponse");
  add(success(z.strictObject({ id: z.string(), deleted: z.literal(true) })), "DeletedResponse");
  add(
    z.strictObject({ status: z.literal("success"), data: z.array(attemptSchema) }),
    "DeliveryAttemptListResponse",
  );
  add(eventSchema, "Event");
  add(success(eventSchema), "EventResponse");
  add(page(eventSchema), "EventListResponse");
  add(failSchema, "Fail");
  add(internalErrorSchema, "InternalError");
  const { schemas } = z.toJSONSchema(named, {
    target: "draft-2020-12",
    io: "output",
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Each becomes part of the OpenAPI document, not a schema document of its own.
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

/** A reference to a component of the document. */
export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The response headers every operation may send, and `extra`. */
export function headers(...extra: Array<"Retry-After" | "Idempotent-Replayed">) {
  const names = ["x-request-id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", ...extra];
  return Object.fromEntries(names.map((name) => [name, ref("headers", name)]));
}

export const json = (schema: unknown) => ({ "application/json": { schema } });

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

/** A success response whose body is the component schema `schema`. */
export function ok(description: string, schema: string, ...extra: Array<"Idempotent-Replayed">) {
  return { description, headers: headers(...extra), content: json(ref("schemas", schema)) };
}

/** The failures every signed operation may answer. */
export const EVERYWHERE = {
  401: ref("responses", "Unauthorized"),
  404: ref("responses", "NotFound"),
  429: ref("responses", "RateLimited"),
  431: ref("responses", "HeadersTooLarge"),
  500: ref("responses", "InternalError"),
};

/** The fail envelope of an HTTP status, with `error.code` one of `codes`. */
function failEnvelope(status: number, codes: ErrorCode[]) {
  const error = {
    type: "object",
    properties: { statusCode: { const: status }, code: { enum: codes, examples: codes.slice(0, 1) } },
  };
  return { allOf: [ref("schemas", "Fail"), { type: "object", properties: { error } }] };
}

/** A fail-envelope response whose `error.code` is one of `codes`. */
export function failure(
  status: number,
  description: string,
  codes: ErrorCode[],
  responseHeaders = headers(),
) {
  return { description, headers: responseHeaders, content: json(failEnvelope(status, codes)) };
}

/** The 503 of an operation whose only way to fail with 503 is the database. */
export const STORAGE_UNAVAILABLE = failure(
  503,
  "The database is unreachable (`SERVICE_UNAVAILABLE`): nothing changed, retry.",
  [ErrorCode.SERVICE_UNAVAILABLE],
  headers("Retry-After"),
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
  return [ref("parameters", "SignatureVersion"), ...extra, ref("parameters", "RequestId")];
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
      ref("parameters", "SignatureVersion"),
      ref("parameters", "IdempotencyKey"),
      ACCOUNT_NUMBER_PARAMETER,
      ref("parameters", "RequestId"),
    ],
    responses: {
      200: ok("The account, as it now is.", "AccountDetailResponse", "Idempotent-Replayed"),
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
      409: ref("responses", "RequestInProgress"),
      413: ref("responses", "PayloadTooLarge"),
      415: ref("responses", "UnsupportedMediaType"),
      422: failure(
        422,
        "A temporary account (`ACCOUNT_NOT_PERMANENT`), or the Idempotency-Key came with another request " +
          "(`IDEMPOTENCY_KEY_REUSED`).",
        [ErrorCode.ACCOUNT_NOT_PERMANENT, ErrorCode.IDEMPOTENCY_KEY_REUSED],
        headers("Idempotent-Replayed"),
      ),
      502: ref("responses", "ProviderUnavailable"),
      503: STORAGE_UNAVAILABLE,
    },
  };
}

/** What the two generate operations share: signing, parameters and the JSON body `schema`. */
export function generateOperation(schema: string) {
  return {
    security: SIGNED,
    tags: ["Accounts"],
    parameters: [
      ref("parameters", "SignatureVersion"),
      ref("parameters", "IdempotencyKey"),
      ref("parameters", "RequestId"),
    ],
    requestBody: { required: true, content: json(ref("schemas", schema)) },
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
  409: ref("responses", "RequestInProgress"),
  413: ref("responses", "PayloadTooLarge"),
  415: ref("responses", "UnsupportedMediaType"),
  422: ref("responses", "IdempotencyKeyReused"),
  502: ref("responses", "ProviderUnavailable"),
  503: failure(
    503,
    "The database is unreachable (`SERVICE_UNAVAILABLE`, with `Retry-After`: nothing changed, retry) or " +
      "every account number has been issued (`NUMBER_SPACE_EXHAUSTED`).",
    [ErrorCode.SERVICE_UNAVAILABLE, ErrorCode.NUMBER_SPACE_EXHAUSTED],
    headers("Retry-After"),
  ),
};

const minutes = (ms: number) => ms / 60_000;

const SIGNING_RECIPE = [
  "Lowercase hex HMAC-SHA256, keyed with the secret key (its text, `vsk_` prefix included), of the",
  "request body bytes exactly as sent immediately followed by the `x-timestamp` text, with no separator:",
  "`hex(HMAC-SHA256(secretKey, body + timestamp))`.\n\n",
  `Requests without a body (the list) sign \`${EMPTY_BODY}\` + timestamp; the timestamp alone is accepted too.`,
  "The query string, method and path are not signed. For HTTP libraries that reformat JSON, a signature",
  "over the compact JSON re-serialisation of the parsed body is accepted too. Upper-case hex is accepted.\n\n",
  `Example: secret key \`${SIGNING_EXAMPLE.secretKey}\`, body \`${SIGNING_EXAMPLE.body}\`,`,
  `timestamp \`${SIGNING_EXAMPLE.timestamp}\`: signature \`${SIGNING_EXAMPLE.signature}\`.\n\n`,
  "Exactly 64 hex digits; only spaces and tabs around the value are ignored. With",
  "`x-signature-version: 2` the signature covers the method, path, query, Idempotency-Key, body hash and",
  "timestamp instead (see the `x-signature-version` parameter and docs/api.md).",
].join(" ");

const AUTH_CODES: ErrorCode[] = [
  ErrorCode.MISSING_HEADER,
  ErrorCode.INVALID_API_KEY,
  ErrorCode.BUSINESS_NOT_VERIFIED,
  ErrorCode.INVALID_TIMESTAMP,
  ErrorCode.TIMESTAMP_EXPIRED,
  ErrorCode.INVALID_SIGNATURE_VERSION,
  ErrorCode.SIGNATURE_VERSION_REQUIRED,
  ErrorCode.INVALID_SIGNATURE,
];

/** Query parameter components from a zod object's fields, named as `names` says. */
function queryParameters(shape: Record<string, z.ZodType>, names: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(shape).map(([name, schema]) => {
      const { description, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" });
      delete rest.$schema;
      const parameter = { name, in: "query", required: false, description, schema: rest };
      return [names[name] ?? name, parameter];
    }),
  );
}

/** The `components` of the document: schemas, security schemes, parameters, headers, shared responses. */
export function components() {
  return {
    schemas: componentSchemas(),
    securitySchemes: {
      ApiKey: {
        type: "apiKey",
        in: "header",
        name: "x-api-key",
        description:
          "The business's API key (`vak_...`), issued with its secret key by the operator. Always sent " +
          "together with `x-timestamp` and `x-signature`.",
      },
      Timestamp: {
        type: "apiKey",
        in: "header",
        name: "x-timestamp",
        description:
          "The current Unix time in milliseconds, as decimal digits (`1767225600000`). It must be within " +
          `${minutes(TIMESTAMP_TOLERANCE_MS)} minutes of the server's time, either side. It is signed.`,
      },
      Signature: { type: "apiKey", in: "header", name: "x-signature", description: SIGNING_RECIPE },
    },
    parameters: {
      SignatureVersion: {
        name: "x-signature-version",
        in: "header",
        required: false,
        description:
          "`1` (the default: body and timestamp signed) or `2`: the signature is lowercase hex " +
          "HMAC-SHA256 over these lines joined by newlines: `VAS2-HMAC-SHA256`, the timestamp, the method, " +
          "the canonical path, the canonical query, the Idempotency-Key (or empty) and the hex SHA-256 of " +
          "the body. Path segments and query pairs are " +
          "decoded and re-encoded per RFC 3986, query pairs sorted. An API key can be set to require `2` " +
          "(401 `SIGNATURE_VERSION_REQUIRED` otherwise).",
        schema: { type: "string", enum: ["1", "2"] },
      },
      IdempotencyKey: {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "Makes a POST safe to retry: the first answer below 500 is stored for " +
          `${minutes(IDEMPOTENCY_TTL_MS) / 60} hours and sent again (with \`Idempotent-Replayed: true\`) for ` +
          "the same request with the same key. 409 while the first request still runs; 422 if the key " +
          "comes with another endpoint or body. A replayed signature is answered the same way.",
        // The very expression the replay guard enforces (400 INVALID_IDEMPOTENCY_KEY otherwise).
        schema: { type: "string", pattern: IDEMPOTENCY_KEY.source, examples: ["order-7f3a9c"] },
      },
      RequestId: {
        name: "x-request-id",
        in: "header",
        required: false,
        description: "Reused as the response's `x-request-id` when it is 1 to 64 of `A-Z a-z 0-9 . _ : -`.",
        schema: { type: "string", pattern: REQUEST_ID.source },
      },
      ...queryParameters(listQuerySchema.shape, { page: "Page", limit: "Limit" }),
      ...queryParameters(transactionQuerySchema.shape, {
        accountNumber: "TransactionAccountNumber",
        sessionId: "SessionId",
        from: "From",
        to: "To",
        timeField: "TimeField",
      }),
      ...queryParameters(balanceQuerySchema.shape, { at: "BalanceAt" }),
      ...queryParameters(eventQuerySchema.shape, { type: "EventType" }),
    },
    headers: {
      "x-request-id": {
        description: "Identifies the request in the server's log; quote it when reporting a problem.",
        required: true,
        schema: { type: "string" },
      },
      "RateLimit-Limit": {
        description:
          "Requests allowed per minute by the limit that applied (per client IP before authentication, " +
          "per API key after it). Sent only when the operator turned rate limits on.",
        schema: { type: "integer" },
      },
      "RateLimit-Remaining": {
        description: "Requests left in the current one-minute window.",
        schema: { type: "integer" },
      },
      "RateLimit-Reset": {
        description: "Seconds until the current window ends.",
        schema: { type: "integer" },
      },
      "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
      "Idempotent-Replayed": {
        description: "`true` when this is the stored answer to an earlier identical request, sent again.",
        schema: { type: "string", enum: ["true"] },
      },
    },
    responses: {
      Unauthorized: failure(
        401,
        "Authentication failed. Checked in this order: `x-api-key`, `x-signature`, `x-timestamp` present " +
          "(`Missing required header: <name>`); key known and active (`Invalid API key`); business verified " +
          "(`Business not verified`); timestamp well formed and fresh (`Request timestamp expired`); signature " +
          "matches (`Invalid signature`). Runs before anything is judged about the body.",
        AUTH_CODES,
      ),
      NotFound: failure(
        404,
        "No such route (`Route <METHOD> <path> not found`): an unknown path, or a known path with another " +
          "method (there is no 405). Answered before authentication.",
        [ErrorCode.NOT_FOUND],
      ),
      RequestInProgress: failure(
        409,
        "A request with this signature or Idempotency-Key is still running: retry shortly to get its answer.",
        [ErrorCode.REQUEST_IN_PROGRESS],
      ),
      PayloadTooLarge: failure(
        413,
        "The body is over the size limit (16 KiB by default). Checked before authentication.",
        [ErrorCode.PAYLOAD_TOO_LARGE],
      ),
      UnsupportedMediaType: failure(
        415,
        "The body's `Content-Type` is not `application/json` (with `charset=utf-8` or no charset).",
        [ErrorCode.UNSUPPORTED_MEDIA_TYPE],
        headers("Idempotent-Replayed"),
      ),
      IdempotencyKeyReused: failure(
        422,
        "This Idempotency-Key was already used for another endpoint or body.",
        [ErrorCode.IDEMPOTENCY_KEY_REUSED],
      ),
      RateLimited: failure(
        429,
        "Too many requests: wait `Retry-After` seconds.",
        [ErrorCode.RATE_LIMITED],
        headers("Retry-After"),
      ),
      HeadersTooLarge: {
        description:
          "The request line and headers are too large. Answered before the application sees the request.",
        content: json(failEnvelope(431, [ErrorCode.BAD_REQUEST])),
      },
      InternalError: {
        description:
          "An unexpected failure. Nothing internal is sent; the log has the details under the request id.",
        headers: headers(),
        content: json(ref("schemas", "InternalError")),
      },
      ProviderUnavailable: failure(
        502,
        "The bank could not be reached or answered nonsense. Nothing was written; retry later.",
        [ErrorCode.PROVIDER_UNAVAILABLE],
      ),
    },
  };
}
