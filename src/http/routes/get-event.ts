import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
  ok,
  pathParameter,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";
import { byIdRoute } from "../read-routes.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/events/:id",
  operation: {
    operationId: "getEvent",
    summary: "One event",
    description: "An event of the calling business, by its id, with its delivery to each endpoint.",
    security: SIGNED,
    tags: ["Events"],
    parameters: readParameters(
      pathParameter("id", "The event's id (the `webhook-id` of its deliveries).", {
        type: "string",
        examples: ["evt_1d7f0c2a4e8a4c559a570d2f4f1e9b1a"],
      }),
    ),
    responses: {
      200: ok("The event.", Schemas.EventResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or the calling business has no event with this id (`EVENT_NOT_FOUND`: " +
          "another business's alike).",
        [ErrorCode.EVENT_NOT_FOUND],
      ),
    },
  },
  head: {
    summary: "The event's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /events/:id. */
export function register(app: ContractScope, { events }: ApiServices): void {
  byIdRoute(app, contract, (caller, id) => events.get(caller, id));
}
