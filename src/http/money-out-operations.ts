import type { z } from "zod";
import { ErrorCode } from "../errors.js";
import { Schemas } from "./answers.js";
import {
  BANK_UNAVAILABLE,
  EVERYWHERE,
  failure,
  headers,
  json,
  ok,
  PARAMETERS,
  RESPONSES,
  SIGNED,
  STORAGE_UNAVAILABLE,
} from "./openapi-components.js";

// What the operations that move money (POST /payouts, POST /transactions/{id}/refund) share in
// the OpenAPI document: signed, an Idempotency-Key required, answered 202 with the payout, and
// their failures in the order they are checked.

const replayed = headers("Idempotent-Replayed");

export interface MoneyOutOperation {
  operationId: string;
  summary: string;
  description: string;
  pathParameter?: unknown;
  /** The body's schema; none for an operation that takes no fields (a held credit's return). */
  requestBody?: { schema: z.ZodType; required: boolean };
  success: string;
  /** What the 400 says besides the key, the JSON and the HTTP layer. */
  badRequest: string;
  notFound?: { description: string; codes: ErrorCode[] };
  /** Whether the body takes a `reference` of the business's own (409 DUPLICATE_REFERENCE). */
  reference: boolean;
  /** The 422's own refusals, described, before the Idempotency-Key's reuse. */
  unprocessable: { description: string; codes: ErrorCode[] };
}

/** The OpenAPI operation of a signed POST that moves money. */
export function moneyOutOperation(o: MoneyOutOperation) {
  return {
    operationId: o.operationId,
    summary: o.summary,
    description: o.description,
    security: SIGNED,
    tags: ["Payouts"],
    parameters: [
      PARAMETERS.SignatureVersion,
      PARAMETERS.IdempotencyKeyRequired,
      ...(o.pathParameter ? [o.pathParameter] : []),
      PARAMETERS.RequestId,
    ],
    ...(o.requestBody
      ? { requestBody: { required: o.requestBody.required, content: json(o.requestBody.schema) } }
      : {}),
    responses: {
      202: ok(o.success, Schemas.PayoutResponse, "Idempotent-Replayed"),
      400: failure(
        400,
        "No Idempotency-Key (`IDEMPOTENCY_KEY_REQUIRED`) or a malformed one (`INVALID_IDEMPOTENCY_KEY`), " +
          `${o.badRequest} (\`VALIDATION_FAILED\`), the body is not a JSON object (\`INVALID_JSON\`), or the ` +
          "HTTP layer refused it (`BAD_REQUEST`).",
        [
          ErrorCode.IDEMPOTENCY_KEY_REQUIRED,
          ErrorCode.INVALID_IDEMPOTENCY_KEY,
          ErrorCode.VALIDATION_FAILED,
          ErrorCode.INVALID_JSON,
          ErrorCode.BAD_REQUEST,
        ],
        replayed,
      ),
      ...EVERYWHERE,
      403: failure(
        403,
        "API payouts, refunds included, are off for the business (`PAYOUTS_DISABLED`: its owner turns them on " +
          "in the dashboard), or the API key is limited to other client addresses for payouts " +
          "(`PAYOUT_IP_NOT_ALLOWED`).",
        [ErrorCode.PAYOUTS_DISABLED, ErrorCode.PAYOUT_IP_NOT_ALLOWED],
        replayed,
      ),
      ...(o.notFound
        ? { 404: failure(404, o.notFound.description, [ErrorCode.NOT_FOUND, ...o.notFound.codes], replayed) }
        : {}),
      409: o.reference
        ? failure(
            409,
            "The request is still running (`REQUEST_IN_PROGRESS`), or `reference` was used by another payout " +
              "with other details (`DUPLICATE_REFERENCE`).",
            [ErrorCode.REQUEST_IN_PROGRESS, ErrorCode.DUPLICATE_REFERENCE],
            replayed,
          )
        : RESPONSES.RequestInProgress,
      413: RESPONSES.PayloadTooLarge,
      415: RESPONSES.UnsupportedMediaType,
      422: failure(
        422,
        `${o.unprocessable.description}, or the Idempotency-Key came with another request (\`IDEMPOTENCY_KEY_REUSED\`).`,
        [...o.unprocessable.codes, ErrorCode.IDEMPOTENCY_KEY_REUSED],
        replayed,
      ),
      502: BANK_UNAVAILABLE,
      503: STORAGE_UNAVAILABLE,
    },
  };
}
