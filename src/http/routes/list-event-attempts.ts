import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import { ok, type RouteContract, readFailures, readParameters, SIGNED } from "../openapi-components.js";
import { byIdRoute } from "../read-routes.js";
import { EVENT_ID_PARAMETER } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/events/:id/attempts",
  operation: {
    operationId: "listEventAttempts",
    summary: "Every attempt to deliver an event",
    description:
      "Oldest first, to every endpoint: time, status code, duration, the first 1 KiB of the answer, the error.",
    security: SIGNED,
    tags: ["Events"],
    parameters: readParameters(EVENT_ID_PARAMETER),
    responses: {
      200: ok("Every attempt to deliver an event.", Schemas.DeliveryAttemptListResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or the calling business has no event with this id (`EVENT_NOT_FOUND`).",
        [ErrorCode.EVENT_NOT_FOUND],
      ),
    },
  },
  head: {
    summary: "The attempt list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /events/:id/attempts. */
export function register(app: ContractScope, { redelivery: service }: ApiServices): void {
  byIdRoute(app, contract, (caller, id) => service.attempts(caller, id));
}
