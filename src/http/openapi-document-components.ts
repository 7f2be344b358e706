import { EMPTY_BODY, TIMESTAMP_TOLERANCE_MS } from "../auth/signature.js";
import { HEADERS, minutes, PARAMETERS, RESPONSES } from "./openapi-parts.js";
import { listed } from "./openapi-references.js";
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
    parameters: listed(PARAMETERS),
    headers: listed(HEADERS),
    responses: listed(RESPONSES),
  };
}
