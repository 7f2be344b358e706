import { listQuery } from "../../core/validation.js";
import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { callerOf } from "../authenticate.js";
import { type ContractScope, ID_PARAMS } from "../contract-validation.js";
import {
  answersOf,
  ok,
  PARAMETERS,
  pathParameter,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";

/** The `{id}` of the settlement routes. */
export const SETTLEMENT_ID_PARAMETER = pathParameter(
  "id",
  "The settlement's id, as GET /settlements lists it.",
  {
    type: "string",
    examples: ["stl_7d0c2e9b4a1f4c3e9b8a6d5c4b3a2f10"],
  },
);

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/settlements/:id/transactions",
  operation: {
    operationId: "listSettlementTransactions",
    summary: "The transactions a settlement covered",
    description:
      "The business's transactions recorded since its last settlement that did not fail, up to this " +
      "one, newest first, with the list's `pagination` (its total is the settlement's `transactionCount`).",
    security: SIGNED,
    tags: ["Settlements"],
    parameters: readParameters(SETTLEMENT_ID_PARAMETER, PARAMETERS.Page, PARAMETERS.Limit),
    responses: {
      200: ok("One page of the settlement's transactions.", Schemas.TransactionListResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or the calling business has no settlement with this id " +
          "(`SETTLEMENT_NOT_FOUND`: another business's alike).",
        [ErrorCode.SETTLEMENT_NOT_FOUND],
        "A parameter is malformed (`VALIDATION_FAILED`: the message names it), or the HTTP layer refused " +
          "the request (`BAD_REQUEST`).",
      ),
    },
  },
  head: {
    summary: "The list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /settlements/:id/transactions?page&limit. */
export function register(app: ContractScope, { settlements }: ApiServices): void {
  app.get(
    contract.path,
    { schema: { params: ID_PARAMS, querystring: listQuery, response: answersOf(contract) } },
    async (request) => {
      const { items, pagination } = await settlements.transactions(
        callerOf(request),
        request.params.id,
        request.query,
      );
      return { status: "success", data: items, pagination };
    },
  );
}
