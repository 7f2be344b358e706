import { eventQuery } from "../../events/event-service.js";
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
  path: "/events",
  operation: {
    operationId: "listEvents",
    summary: "List the business's events",
    description:
      "Every event, newest first (highest `sequence` first), with its delivery to each endpoint, and the " +
      "account list's `pagination`. Unfiltered, any page is an index range read; with `type`, a count and " +
      "an offset over that type's index entries.",
    security: SIGNED,
    tags: ["Events"],
    parameters: readParameters(PARAMETERS.Page, PARAMETERS.Limit, PARAMETERS.EventType),
    responses: {
      200: ok("One page of events.", Schemas.EventListResponse),
      ...readFailures(
        "No route (`NOT_FOUND`).",
        [],
        "A parameter is malformed (`VALIDATION_FAILED`: the message names it), or the HTTP layer refused " +
          "the request (`BAD_REQUEST`).",
      ),
    },
  },
  head: {
    summary: "The event list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /events?page&limit&type. */
export function register(app: ContractScope, { events }: ApiServices): void {
  pageRoute(app, contract, eventQuery, (caller, query) => events.list(caller, query));
}
