import { z } from "zod";
import { listQuerySchema } from "../accounts/api-schemas.js";
import { EMPTY_BODY, TIMESTAMP_TOLERANCE_MS } from "../auth/signature.js";
import { balanceQuerySchema, transactionQuerySchema } from "../collections/api-schemas.js";
import { ErrorCode } from "../errors.js";
import { eventQuerySchema } from "../events/api-schemas.js";
import { IDEMPOTENCY_TTL_MS } from "../idempotency/request-records.js";
import { payoutQuerySchema } from "../payouts/api-schemas.js";
import { IDEMPOTENCY_KEY, REQUEST_ID } from "./header-rules.js";

import { failEnvelope, failure, headers, json, ref } from "./openapi-components.js";

import { componentSchemas } from "./openapi-schemas.js";

// The OpenAPI document's `components`: schemas (from the domain's zod schemas), the shared
// responses, parameters, headers and security schemes the route operations refer to.

/** The docs' worked example of a signature (test/openapi.test.ts recomputes it). */
export const SIGNING_EXAMPLE = {
  secretKey: "vsk_example0SecretKeyForDocsOnly0000000000000",
  body: '{"name":"Ada Obi","email":"ada@example.com","bvn":"22345678901"}',
  timestamp: "1767225600000",
  signature: "b512160a0d194161f518ad3a11becf47ee57007dc495aa2680cfd48a0a56ec4d",
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

export function components() {
  return {
    schemas: componentSchemas(),
    securitySchemes: {
      ApiKey: {
        type: "apiKey",
        in: "header",
        name: "x-api-key",
        description:
          "The business's API key (`vak_...`), issued with its secret key on the dashboard's API keys page " +
          "(or by `vas business create` / `vas key create`). Always sent " +
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
      }),
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
