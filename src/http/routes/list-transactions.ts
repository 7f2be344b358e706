import { transactionQuery } from "../../collections/validation.js";
import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
  ok,
  PARAMETERS,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";
import { pageRoute } from "../read-routes.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/transactions",
  operation: {
    operationId: "listTransactions",
    summary: "List the business's transactions",
    description:
      "Credited inbound transfers, newest recorded first, with the account list's `pagination`. Filters " +
      "combine. `from`/`to` bound `paidAt` unless `timeField=createdAt`; a `paidAt` range lists the latest " +
      "`paidAt` first and costs in proportion to the page's depth within the range; any other page is an " +
      "index range read, deep pages costing what the first does. `sessionId` finds one payment by the " +
      "bank's reference.",
    security: SIGNED,
    tags: ["Collections"],
    parameters: readParameters(
      PARAMETERS.Page,
      PARAMETERS.Limit,
      PARAMETERS.TransactionAccountNumber,
      PARAMETERS.SessionId,
      PARAMETERS.From,
      PARAMETERS.To,
      PARAMETERS.TimeField,
    ),
    responses: {
      200: ok("One page of transactions.", Schemas.TransactionListResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or `accountNumber` is not one of the calling business's numbers (`ACCOUNT_NOT_FOUND`).",
        [ErrorCode.ACCOUNT_NOT_FOUND],
        "A parameter is malformed (`VALIDATION_FAILED`: the message names it; `from` after `to`; more than " +
          "20 parameters), or the HTTP layer refused the request (`BAD_REQUEST`).",
      ),
    },
  },
  head: {
    summary: "The transaction list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /transactions?page&limit&accountNumber&sessionId&from&to&timeField: the caller's transactions. */
export function register(app: ContractScope, { collections }: ApiServices): void {
  pageRoute(app, contract, transactionQuery, (caller, query) => collections.listTransactions(caller, query));
}
