import { createRequire } from "node:module";
import { ErrorCode } from "../errors.js";
import { components, failure, headers, json, ref } from "./openapi-components.js";

/** An OpenAPI 3.1 document, as the JSON it is served as. */
export type OpenApiDocument = { openapi: string } & Record<string, unknown>;

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const SIGNED = [{ ApiKey: [], Timestamp: [], Signature: [] }];

function ok(description: string, schema: string, ...extra: Array<"Idempotent-Replayed">) {
  return { description, headers: headers(...extra), content: json(ref("schemas", schema)) };
}

/** Every response of `get` without its body, for the HEAD that Fastify answers beside each GET. */
function headOf(get: { responses: Record<string, unknown> }, shared: Record<string, DeclaredResponse>) {
  const responses = Object.entries(get.responses).map(([status, answer]) => {
    const { content: _, ...withoutBody } = componentOf(answer as DeclaredResponse, shared);
    return [
      status,
      { ...withoutBody, description: `As for GET, without a body: ${withoutBody.description}` },
    ];
  });
  return Object.fromEntries(responses);
}

interface DeclaredResponse {
  $ref?: string;
  description: string;
  headers?: unknown;
  content?: unknown;
}

/** The response itself, or the shared one it refers to. */
function componentOf(answer: DeclaredResponse, shared: Record<string, DeclaredResponse>): DeclaredResponse {
  if (answer.$ref === undefined) return answer;
  const name = answer.$ref.split("/").pop() ?? "";
  const found = shared[name];
  if (!found) throw new Error(`no response component ${name}`);
  return found;
}

function paths(shared: Record<string, DeclaredResponse>) {
  const everywhere = {
    401: ref("responses", "Unauthorized"),
    404: ref("responses", "NotFound"),
    429: ref("responses", "RateLimited"),
    431: ref("responses", "HeadersTooLarge"),
    500: ref("responses", "InternalError"),
  };
  const generate = (schema: string) => ({
    security: SIGNED,
    tags: ["Accounts"],
    parameters: [
      ref("parameters", "SignatureVersion"),
      ref("parameters", "IdempotencyKey"),
      ref("parameters", "RequestId"),
    ],
    requestBody: { required: true, content: json(ref("schemas", schema)) },
  });
  const generateFailures = {
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
    ...everywhere,
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
  const list = {
    operationId: "listAccounts",
    summary: "List the business's accounts",
    description:
      "The calling business's accounts, permanent and temporary (expired ones included), newest first. " +
      "A page past the end is an empty `data` with the true `total` and `pages`.",
    security: SIGNED,
    tags: ["Accounts"],
    parameters: [
      ref("parameters", "SignatureVersion"),
      ref("parameters", "Page"),
      ref("parameters", "Limit"),
      ref("parameters", "RequestId"),
    ],
    responses: {
      200: ok("One page of accounts.", "AccountListResponse"),
      400: failure(
        400,
        "`page` or `limit` is not a whole number in range (`VALIDATION_FAILED`), or the HTTP layer " +
          "refused the request (`BAD_REQUEST`).",
        [ErrorCode.VALIDATION_FAILED, ErrorCode.BAD_REQUEST],
      ),
      ...everywhere,
      503: failure(
        503,
        "The database is unreachable: nothing changed, retry.",
        [ErrorCode.SERVICE_UNAVAILABLE],
        headers("Retry-After"),
      ),
    },
  };
  return {
    "/account/generate": {
      post: {
        operationId: "generatePermanentAccount",
        summary: "Create or re-issue a customer's permanent account",
        description:
          "One permanent account per business and customer email (compared case-insensitively). The first " +
          "call creates it (201); a later one re-issues it (200) with a new number, the name just sent and " +
          "the same place in the list. The old number is retired for ever. The BVN or NIN is never returned.",
        ...generate("PermanentAccountRequest"),
        responses: {
          200: ok(
            "Re-issued: the customer already had a permanent account here.",
            "PermanentAccountResponse",
            "Idempotent-Replayed",
          ),
          201: ok("Created: a new permanent account.", "PermanentAccountResponse", "Idempotent-Replayed"),
          ...generateFailures,
        },
      },
    },
    "/account/generate/temporary": {
      post: {
        operationId: "generateTemporaryAccount",
        summary: "Create a temporary account",
        description:
          "Every successful call creates a new account that expires `duration` minutes after creation. " +
          "An expired account stays in the list with its past `expiresAt`; its number is never reused.",
        ...generate("TemporaryAccountRequest"),
        responses: {
          201: ok("Created: a new temporary account.", "TemporaryAccountResponse", "Idempotent-Replayed"),
          ...generateFailures,
        },
      },
    },
    "/account/list": {
      get: list,
      head: {
        ...list,
        operationId: "listAccountsHead",
        summary: "The list's status and headers, without the body",
        description:
          "Answered as GET is, with the same signing (the body signed is `{}`, or nothing), checks, " +
          "status and headers, and no body: for example to check the keys and the signature.",
        responses: headOf(list, shared),
      },
    },
  };
}

const DESCRIPTION = `Issues 10-digit Nigerian virtual bank account numbers (NUBANs) to the customers of a verified
business: permanent accounts (one per customer email) and temporary accounts (one per call, with an
expiry time), and lists the business's accounts a page at a time.

Every request is signed with the business's API key and secret key: see the security schemes.
Request bodies are JSON objects sent with \`Content-Type: application/json\`.

Success: \`{"status": "success", "data": ...}\`. Deliberate failures use the \`Fail\` envelope: branch
on \`error.code\`. An unexpected failure (500) is \`InternalError\`. Every response carries
\`x-request-id\`.`;

/** The OpenAPI 3.1 document of the public API, whose operations live under `basePath`. Build it once. */
export function buildOpenApiDocument(basePath: string): OpenApiDocument {
  const parts = components();
  return {
    openapi: "3.1.0",
    info: {
      title: "Virtual Account Service API",
      version,
      description: DESCRIPTION,
      // Self-hosted: whoever runs this server answers for it; package.json says UNLICENSED.
      contact: { name: "The operator of this server" },
      license: { name: "Proprietary: no licence is granted", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: basePath, description: "This server" }],
    tags: [{ name: "Accounts", description: "Permanent and temporary virtual accounts." }],
    paths: paths(parts.responses),
    components: parts,
  };
}
