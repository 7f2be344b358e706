import { ErrorCode } from "../../errors.js";
import { payoutInput } from "../../payouts/validation.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import { moneyOutOperation } from "../money-out-operations.js";
import type { RouteContract } from "../openapi-components.js";
import { writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/payouts",
  operation: moneyOutOperation({
    operationId: "createPayout",
    summary: "Send money to an account at a bank",
    description:
      "Checked in this order after authentication: the `Idempotency-Key` (required here), API payouts on " +
      "for the business and the key's client addresses, the body, the destination's name enquiry, the " +
      "limits, and the available balance. Then, in one transaction, amount and fee move from `available` to " +
      "`pending` (a hold) and the payout is answered `pending` (202); the bank is asked at once and the " +
      "payout becomes `successful` (the hold posted) or `failed` (voided: amount and fee back) within " +
      "seconds, with its `payout.*` event. Ask for its state with GET /payouts/{id}; a payout the bank has " +
      "not finished stays `pending`, never sent twice.",
    reference: true,
    requestBody: { schema: Schemas.PayoutRequest, required: true },
    success: "Held and sent to the bank: the payout, `pending`.",
    badRequest:
      "the body breaks a rule or names an unknown bank or an account number without its bank's check digit",
    unprocessable: {
      description:
        "The destination does not resolve (`ACCOUNT_NOT_RESOLVED`), the payout is above a limit " +
        "(`PAYOUT_LIMIT_EXCEEDED`), the available balance does not cover amount and fee " +
        "(`INSUFFICIENT_BALANCE`; nothing held)",
      codes: [
        ErrorCode.ACCOUNT_NOT_RESOLVED,
        ErrorCode.PAYOUT_LIMIT_EXCEEDED,
        ErrorCode.INSUFFICIENT_BALANCE,
      ],
    },
  }),
} satisfies RouteContract;

/** POST /payouts: 202 with the payout, held; the tracker asks the bank. */
export function register(app: ContractScope, { payouts }: ApiServices): void {
  writeRoute(
    app,
    contract,
    payoutInput,
    (_id, input, business, unit) => payouts.create(business, input, { channel: "api", unit }),
    (payout) => payout,
    {
      config: { idempotencyKey: "required" },
      // After the key and before the body, as the contract orders its checks.
      preValidation: async (request) => payouts.assertAllowed(callerOf(request), request.ip),
    },
  );
}
