import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import { moneyOutOperation } from "../money-out-operations.js";
import type { RouteContract } from "../openapi-components.js";
import { NO_FIELDS, writeRoute } from "../write-operations.js";
import { HELD_TRANSACTION_PARAMETER } from "./accept-transaction.js";
import { TRANSACTION_NOT_FOUND } from "./refund-transaction.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/transactions/:id/return",
  operation: moneyOutOperation({
    operationId: "returnTransaction",
    summary: "Return a held credit to its payer",
    description:
      "A refund of a held credit's whole amount to its payer's account (`refundOf` is the transaction), " +
      "taken from the held balance, with no fee and no limit; 202 with the refund, a payout `pending`, and " +
      "`payment.returned`; then `refund.successful`, or `refund.failed` and the credit is held again (to " +
      "accept or return). Once per credit: 422 `CREDIT_NOT_HELD` for one accepted, returned, or never held.",
    pathParameter: HELD_TRANSACTION_PARAMETER,
    reference: false,
    success: "Held and sent to the bank: the return, a payout `pending`.",
    badRequest: "the body breaks a rule",
    notFound: TRANSACTION_NOT_FOUND,
    unprocessable: {
      description:
        "The transaction is not held (`CREDIT_NOT_HELD`), or the payer's account cannot be named (`ACCOUNT_NOT_RESOLVED`)",
      codes: [ErrorCode.CREDIT_NOT_HELD, ErrorCode.ACCOUNT_NOT_RESOLVED],
    },
  }),
} satisfies RouteContract;

/** POST /transactions/:id/return: 202 with the return (a refund payout), held. */
export function register(app: ContractScope, { payouts, refunds }: ApiServices): void {
  writeRoute(
    app,
    contract,
    NO_FIELDS,
    (id, _input, business, unit) =>
      refunds.returnHeld(business, { type: "api_key", id: business.keyId }, id, { channel: "api", unit }),
    (payout) => payout,
    {
      config: { idempotencyKey: "required" },
      preValidation: async (request) => payouts.assertAllowed(callerOf(request), request.ip),
    },
  );
}
