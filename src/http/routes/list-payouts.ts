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
  path: "/payouts",
  operation: {
    operationId: "listPayouts",
    summary: "List the business's payouts",
    description:
      "Newest first, with the list's `pagination`. Filters combine: `status`, and `from`/`to` on `createdAt`.",
    security: SIGNED,
    tags: ["Payouts"],
    parameters: readParameters(
      PARAMETERS.Page,
      PARAMETERS.Limit,
      PARAMETERS.PayoutStatus,
      PARAMETERS.PayoutFrom,
      PARAMETERS.PayoutTo,
      PARAMETERS.PayoutSessionId,
    ),
    responses: {
      200: ok("One page of payouts.", Schemas.PayoutListResponse),
      ...readFailures(
        "No route (`NOT_FOUND`).",
        [],
        "A parameter is malformed (`VALIDATION_FAILED`: the message names it; `from` after `to`; more than " +
          "20 parameters), or the HTTP layer refused the request (`BAD_REQUEST`).",
      ),
    },
  },
  head: {
    summary: "The payout list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /payouts?page&limit&status&from&to. */
export function register(app: ContractScope, { payoutListing }: ApiServices): void {
  pageRoute(app, contract, payoutQuery, (caller, query) => payoutListing.list(caller, query));
}
