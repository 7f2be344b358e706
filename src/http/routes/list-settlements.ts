import { payoutQuery } from "../../payouts/validation.js";
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
  path: "/settlements",
  operation: {
    operationId: "listSettlements",
    summary: "List the business's settlements",
    description:
      "Newest first, with the list's `pagination`. Filters combine: `status` (the settlement's payout's), " +
      "and `from`/`to` on `createdAt`.",
    security: SIGNED,
    tags: ["Settlements"],
    parameters: readParameters(
      PARAMETERS.Page,
      PARAMETERS.Limit,
      PARAMETERS.PayoutStatus,
      PARAMETERS.PayoutFrom,
      PARAMETERS.PayoutTo,
      PARAMETERS.PayoutSessionId,
    ),
    responses: {
      200: ok("One page of settlements.", Schemas.SettlementListResponse),
      ...readFailures(
        "No route (`NOT_FOUND`).",
        [],
        "A parameter is malformed (`VALIDATION_FAILED`: the message names it; `from` after `to`; more than " +
          "20 parameters), or the HTTP layer refused the request (`BAD_REQUEST`).",
      ),
    },
  },
  head: {
    summary: "The settlement list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /settlements?page&limit&status&from&to. */
export function register(app: ContractScope, { settlements }: ApiServices): void {
  pageRoute(app, contract, payoutQuery, (caller, query) => settlements.list(caller, query));
}
