import type { FastifyInstance } from "fastify";
import type { CollectionService, ReceivedTransfer } from "../../collections/collection-service.js";
import { ErrorCode, TRANSFER_REFUSALS } from "../../errors.js";
import { callerOf } from "../authenticate.js";
import {
  EVERYWHERE,
  failure,
  headers,
  json,
  ok,
  type RouteContract,
  ref,
  SIGNED,
  STORAGE_UNAVAILABLE,
} from "../openapi-components.js";
import { receivedBody } from "../request-body.js";
import { answerOnce } from "../request-guard.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/sandbox/transfers",
  operation: {
    operationId: "createSandboxTransfer",
    summary: "Simulate a transfer into one of your accounts (sandbox only)",
    description:
      "Only when the server runs with SANDBOX=true (the default outside production); otherwise this " +
      "route does not exist (404). The embedded Virtual Bank sends a transfer in NGN into one of the " +
      "calling business's accounts through the same path a real bank's notification takes: the " +
      "acceptance rules apply, fees are taken and the ledger is posted. Every amount is integer kobo.",
    security: SIGNED,
    tags: ["Sandbox"],
    parameters: [
      ref("parameters", "SignatureVersion"),
      ref("parameters", "IdempotencyKey"),
      ref("parameters", "RequestId"),
    ],
    requestBody: { required: true, content: json(ref("schemas", "SandboxTransferRequest")) },
    responses: {
      201: ok("Credited: the transaction.", "TransactionResponse", "Idempotent-Replayed"),
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
        headers("Idempotent-Replayed"),
      ),
      ...EVERYWHERE,
      404: failure(
        404,
        "No route (`NOT_FOUND`: also when the sandbox is off), or the number is not one of the calling " +
          "business's (`ACCOUNT_NOT_FOUND`).",
        [ErrorCode.NOT_FOUND, ErrorCode.ACCOUNT_NOT_FOUND],
        headers("Idempotent-Replayed"),
      ),
      409: ref("responses", "RequestInProgress"),
      413: ref("responses", "PayloadTooLarge"),
      415: ref("responses", "UnsupportedMediaType"),
      422: failure(
        422,
        "The transfer was refused at the bank, nothing credited or held: the code says why (docs/api.md, " +
          "Inbound transfers), or the Idempotency-Key came with another request (`IDEMPOTENCY_KEY_REUSED`).",
        [...TRANSFER_REFUSALS, ErrorCode.IDEMPOTENCY_KEY_REUSED],
        headers("Idempotent-Replayed"),
      ),
      503: STORAGE_UNAVAILABLE,
    },
  },
} satisfies RouteContract;

/** POST /sandbox/transfers: 201 with the transaction, or 422 with the refusal. */
export function sandboxTransferRoute(app: FastifyInstance, collections: CollectionService): void {
  app.post(contract.path, async (request, reply) => {
    const body = receivedBody(request)?.object() ?? {};
    return answerOnce<ReceivedTransfer>(
      request,
      reply,
      () => collections.sandboxTransfer(callerOf(request), body),
      ({ transaction }) => ({ statusCode: 201, body: { status: "success", data: transaction } }),
    );
  });
}
