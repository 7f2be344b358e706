import { ErrorCode } from "../../errors.js";
import { refundInput } from "../../payouts/refunds.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import { moneyOutOperation } from "../money-out-operations.js";
import { pathParameter, type RouteContract } from "../openapi-components.js";
import { writeRoute } from "../write-operations.js";

/** A write on one of the business's transactions: its 404. */
export const TRANSACTION_NOT_FOUND = {
  description:
    "No route (`NOT_FOUND`), or the calling business has no transaction with this id (`TRANSACTION_NOT_FOUND`).",
  codes: [ErrorCode.TRANSACTION_NOT_FOUND],
};

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/transactions/:id/refund",
  operation: moneyOutOperation({
    operationId: "refundTransaction",
    summary: "Send a payment back to its payer",
    description:
      "A payout to the payer's account of one of your inbound transactions (`refundOf` is the transaction), " +
      "the whole payment by default (what is left of it after earlier refunds) or `amount` of it. A " +
      "transaction's refunds pending and successful never exceed its amount (422 `REFUND_EXCEEDS_PAYMENT`); a " +
      "failed one frees its amount. The payer's account is named by its bank first (422 " +
      "`ACCOUNT_NOT_RESOLVED` when it cannot be, for example when the bank did not give the payer's bank). " +
      "Then as POST /payouts: the limits, the balance, the hold, the fee; 202 with the payout, `pending`, " +
      "and `refund.successful` or `refund.failed` once the bank says.",
    pathParameter: pathParameter("id", "The transaction's id.", {
      type: "string",
      examples: ["txn_5f0c2a4e8a8e4c559a570d2f4f1e9b1a"],
    }),
    reference: false,
    requestBody: { schema: Schemas.RefundRequest, required: false },
    success: "Held and sent to the bank: the refund, a payout `pending`.",
    badRequest: "the body breaks a rule",
    notFound: TRANSACTION_NOT_FOUND,
    unprocessable: {
      description:
        "The refunds would exceed the payment (`REFUND_EXCEEDS_PAYMENT`), the payer's account cannot be named " +
        "(`ACCOUNT_NOT_RESOLVED`), a limit (`PAYOUT_LIMIT_EXCEEDED`) or the balance (`INSUFFICIENT_BALANCE`) " +
        "refuses it, or the transaction is a held credit (`CREDIT_HELD`: accept or return it)",
      codes: [
        ErrorCode.REFUND_EXCEEDS_PAYMENT,
        ErrorCode.ACCOUNT_NOT_RESOLVED,
        ErrorCode.PAYOUT_LIMIT_EXCEEDED,
        ErrorCode.INSUFFICIENT_BALANCE,
        ErrorCode.CREDIT_HELD,
      ],
    },
  }),
} satisfies RouteContract;

/** POST /transactions/:id/refund: 202 with the refund (a payout), held. */
export function register(app: ContractScope, { payouts, refunds }: ApiServices): void {
  writeRoute(
    app,
    contract,
    refundInput,
    (id, input, business, unit) => refunds.refund(business, id, input, { channel: "api", unit }),
    (payout) => payout,
    {
      config: { idempotencyKey: "required" },
      preValidation: async (request) => payouts.assertAllowed(callerOf(request), request.ip),
    },
  );
}
