import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import { pathParameter, type RouteContract } from "../openapi-components.js";
import { NO_FIELDS, writeOperation, writeRoute } from "../write-operations.js";
import { TRANSACTION_NOT_FOUND } from "./refund-transaction.js";

/** The transaction id in a held credit's decision's path. */
export const HELD_TRANSACTION_PARAMETER = pathParameter("id", "The held transaction's id.", {
  type: "string",
  examples: ["txn_5f0c2a4e8a8e4c559a570d2f4f1e9b1a"],
});

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/transactions/:id/accept",
  operation: writeOperation({
    operationId: "acceptTransaction",
    summary: "Accept a held credit",
    description:
      "A credit its account's rules did not take, held (`status` `held`, the account's `onMismatch` being `hold`), " +
      "moves from the held balance to the available one, and its fee and charges are taken now, by the " +
      "schedules in force now, as they would have been had it been credited as it came. Answers the " +
      "transaction, `successful`; `payment.accepted` is sent. Once per credit: accepting it again, or " +
      "accepting one returned or never held, is 422 `CREDIT_NOT_HELD`.",
    tag: "Collections",
    pathParameter: HELD_TRANSACTION_PARAMETER,
    success: { status: 200, description: "Accepted: the transaction.", schema: Schemas.TransactionResponse },
    notFound: TRANSACTION_NOT_FOUND,
    unprocessable: {
      description: "The transaction is not held (`CREDIT_NOT_HELD`)",
      codes: [ErrorCode.CREDIT_NOT_HELD],
    },
  }),
} satisfies RouteContract;

/** POST /transactions/:id/accept: 200 with the transaction, accepted. */
export function register(app: ContractScope, { heldCredits }: ApiServices): void {
  writeRoute(app, contract, NO_FIELDS, (id, _input, business, unit) =>
    heldCredits.accept(business, { type: "api_key", id: business.keyId }, id, unit),
  );
}
