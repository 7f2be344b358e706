import { requeryInput } from "../../collections/validation.js";
import { ErrorCode, TRANSFER_REFUSALS } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import { answersOf, BANK_UNAVAILABLE, ok, type RouteContract } from "../openapi-components.js";
import { answerOnce } from "../request-guard.js";
import { writeOperation } from "../write-operations.js";

const operation = writeOperation({
  operationId: "requeryTransaction",
  summary: "Find a payment by its session id, asking the bank when it is not recorded",
  description:
    "For a payment a customer says they made that never reached you (its notification was late, dropped " +
    "or abandoned): when the service has the transaction with this session id, 200 with it; when only the " +
    "bank has a credit with it into one of your accounts, it is recorded now, through the same path a " +
    "notification takes (the acceptance rules, the fee, the ledger, the `payment.received` event, once), " +
    "and answered 201; when neither has it, 404. Another business's payment is 404 as well. The " +
    "reconciliation job finds such payments by itself within `RECONCILE_INTERVAL_SECONDS` " +
    "(docs/bank-integration.md); this is for the customer on the phone now.",
  tag: "Collections",
  requestBody: { schema: Schemas.RequeryRequest, required: true },
  success: {
    status: 201,
    description: "Found at the bank and recorded now: the transaction.",
    schema: Schemas.TransactionResponse,
  },
  notFound: {
    description:
      "No route (`NOT_FOUND`), or neither the service nor the bank has a payment with this session id into " +
      "one of the calling business's accounts (`TRANSACTION_NOT_FOUND`).",
    codes: [ErrorCode.TRANSACTION_NOT_FOUND],
  },
  unprocessable: {
    description:
      "The bank has the payment and the acceptance rules refuse it (the code says why, as for a " +
      "notification: docs/api.md, Inbound transfers); the bank returns it to the payer",
    codes: [...TRANSFER_REFUSALS],
  },
});

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/transactions/requery",
  operation: {
    ...operation,
    responses: {
      200: ok("Already recorded: the transaction.", Schemas.TransactionResponse, "Idempotent-Replayed"),
      ...operation.responses,
      // The bank asked, and it could not answer.
      502: BANK_UNAVAILABLE,
    },
  },
} satisfies RouteContract;

/** POST /transactions/requery: 200 when recorded, 201 when recorded now from the bank, 404 when nowhere. */
export function register(app: ContractScope, { reconciliation }: ApiServices): void {
  app.route({
    method: "POST",
    url: contract.path,
    schema: { body: requeryInput, response: answersOf(contract) },
    handler: async (request, reply) =>
      answerOnce(
        request,
        reply,
        (unit) => reconciliation.requery(callerOf(request), request.body.sessionId, unit),
        ({ transaction, duplicate }) => ({
          statusCode: duplicate ? 200 : 201,
          body: { status: "success", data: transaction },
        }),
      ),
  });
}
