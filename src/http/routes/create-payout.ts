import { ErrorCode } from "../../errors.js";
import { payoutInput } from "../../payouts/validation.js";
import type { ApiServices } from "../../web/domain-services.js";
import { callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import {
  BANK_UNAVAILABLE,
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
import { writeRoute } from "../write-operations.js";

const replayed = headers("Idempotent-Replayed");

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/payouts",
  operation: {
    operationId: "createPayout",
    summary: "Send money to an account at a bank",
    description:
      "Checked in this order after authentication: the `Idempotency-Key` (required here), API payouts on " +
      "for the business, the body, the destination's name enquiry, the limits, and the available balance. " +
      "Then, in one transaction, amount and fee move from `available` to `pending` (a hold) and the payout " +
      "is answered `pending` (202); the bank is asked at once and the payout becomes `successful` (the hold " +
      "posted) or `failed` (voided: amount and fee back) within seconds, with its `payout.*` event. Ask for " +
      "its state with GET /payouts/{id}; a payout the bank has not finished stays `pending`, never sent twice.",
    security: SIGNED,
    tags: ["Payouts"],
    parameters: [
      ref("parameters", "SignatureVersion"),
      ref("parameters", "IdempotencyKeyRequired"),
      ref("parameters", "RequestId"),
    ],
    requestBody: { required: true, content: json(ref("schemas", "PayoutRequest")) },
    responses: {
      202: ok("Held and sent to the bank: the payout, `pending`.", "PayoutResponse", "Idempotent-Replayed"),
      400: failure(
        400,
        "No Idempotency-Key (`IDEMPOTENCY_KEY_REQUIRED`) or a malformed one (`INVALID_IDEMPOTENCY_KEY`), the " +
          "body breaks a rule or names an unknown bank or an account number without its bank's check digit " +
          "(`VALIDATION_FAILED`), is not a JSON object (`INVALID_JSON`), or the HTTP layer refused it " +
          "(`BAD_REQUEST`).",
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
        "API payouts are off for the business (`PAYOUTS_DISABLED`): its owner turns them on in the dashboard.",
        [ErrorCode.PAYOUTS_DISABLED],
        replayed,
      ),
      409: failure(
        409,
        "The request is still running (`REQUEST_IN_PROGRESS`), or `reference` was used by another payout " +
          "with other details (`DUPLICATE_REFERENCE`).",
        [ErrorCode.REQUEST_IN_PROGRESS, ErrorCode.DUPLICATE_REFERENCE],
        replayed,
      ),
      413: ref("responses", "PayloadTooLarge"),
      415: ref("responses", "UnsupportedMediaType"),
      422: failure(
        422,
        "The destination does not resolve (`ACCOUNT_NOT_RESOLVED`), the payout is above a limit " +
          "(`PAYOUT_LIMIT_EXCEEDED`), the available balance does not cover amount and fee " +
          "(`INSUFFICIENT_BALANCE`; nothing held), or the Idempotency-Key came with another request " +
          "(`IDEMPOTENCY_KEY_REUSED`).",
        [
          ErrorCode.ACCOUNT_NOT_RESOLVED,
          ErrorCode.PAYOUT_LIMIT_EXCEEDED,
          ErrorCode.INSUFFICIENT_BALANCE,
          ErrorCode.IDEMPOTENCY_KEY_REUSED,
        ],
        replayed,
      ),
      502: BANK_UNAVAILABLE,
      503: STORAGE_UNAVAILABLE,
    },
  },
} satisfies RouteContract;

/** POST /payouts: 202 with the payout, held; the tracker asks the bank. */
export function register(app: ContractScope, { payouts }: ApiServices): void {
  writeRoute(
    app,
    "POST",
    contract.path,
    202,
    payoutInput,
    (_id, input, business, unit) => payouts.create(business, input, unit),
    (payout) => payout,
    {
      config: { idempotencyKey: "required" },
      // After the key and before the body, as the contract orders its checks.
      preValidation: async (request) => payouts.assertEnabled(callerOf(request)),
    },
  );
}
