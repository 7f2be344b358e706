import { z } from "zod";
import { listQuerySchema } from "../accounts/api-schemas.js";
import { balanceQuerySchema, transactionQuerySchema } from "../collections/api-schemas.js";
import { ErrorCode } from "../errors.js";
import { eventQuerySchema } from "../events/api-schemas.js";
import { IDEMPOTENCY_TTL_MS } from "../idempotency/request-records.js";
import { payoutQuerySchema } from "../payouts/api-schemas.js";
import { Schemas } from "./answers.js";
import { IDEMPOTENCY_KEY, REQUEST_ID } from "./header-rules.js";

// The parts of the document that operations share: response headers, parameters and responses,
// each an object an operation holds itself (never a name written as a string). The document
// lists each under its name in `components` and refers to it there wherever an operation holds
// it (openapi.ts).

export const minutes = (ms: number) => ms / 60_000;

export const json = (schema: unknown) => ({ "application/json": { schema } });

/** The response headers, by name. */
export const HEADERS = {
  "x-request-id": {
    description: "Identifies the request in the server's log; quote it when reporting a problem.",
    required: true,
    schema: { type: "string" },
  },
  "RateLimit-Limit": {
    description:
      "Requests allowed per minute by the limit that applied (per client IP before authentication, " +
      "per API key after it). Not sent when that limit is turned off on the server.",
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
};

/** The response headers every operation may send, and `extra`. */
export function headers(...extra: Array<"Retry-After" | "Idempotent-Replayed">) {
  const names = [
    "x-request-id",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    ...extra,
  ] as const;
  return Object.fromEntries(names.map((name) => [name, HEADERS[name]]));
}

/** The fail envelope of an HTTP status, with `error.code` one of `codes`. */
export function failEnvelope(status: number, codes: ErrorCode[]) {
  const error = {
    type: "object",
    properties: { statusCode: { const: status }, code: { enum: codes, examples: codes.slice(0, 1) } },
  };
  return { allOf: [Schemas.Fail, { type: "object", properties: { error } }] };
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

/** Query parameter components from a zod object's fields, each named as `names` says. */
function queryParameters<const N extends Record<string, string>>(
  shape: Record<keyof N, z.ZodType>,
  names: N,
) {
  return Object.fromEntries(
    Object.entries(names).map(([field, name]) => {
      const { description, ...rest } = z.toJSONSchema(shape[field as keyof N], {
        target: "draft-2020-12",
        io: "output",
      });
      delete rest.$schema;
      return [name, { name: field, in: "query", required: false, description, schema: rest }];
    }),
  ) as Record<
    N[keyof N],
    { name: string; in: "query"; required: false; description?: string; schema: unknown }
  >;
}

/** The Idempotency-Key header: optional on every POST, required where money moves. */
const IDEMPOTENCY_KEY_PARAMETER = {
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
};

/** The request parameters, by name. */
export const PARAMETERS = {
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
  IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER,
  IdempotencyKeyRequired: {
    ...IDEMPOTENCY_KEY_PARAMETER,
    required: true,
    description: `Required on the routes that move money (400 \`IDEMPOTENCY_KEY_REQUIRED\` without it). ${IDEMPOTENCY_KEY_PARAMETER.description}`,
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
  ...queryParameters(payoutQuerySchema.shape, {
    status: "PayoutStatus",
    from: "PayoutFrom",
    to: "PayoutTo",
    sessionId: "PayoutSessionId",
  }),
};

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

/** The responses that many operations give alike, by name. */
export const RESPONSES = {
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
    content: json(Schemas.InternalError),
  },
  ProviderUnavailable: failure(
    502,
    "The bank could not be reached or answered nonsense. Nothing was written; retry later.",
    [ErrorCode.PROVIDER_UNAVAILABLE],
  ),
};
