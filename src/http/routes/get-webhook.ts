import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import { ok, type RouteContract, readFailures, readParameters, SIGNED } from "../openapi-components.js";
import { byIdRoute } from "../read-routes.js";
import { ENDPOINT_ID_PARAMETER } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/webhooks/:id",
  operation: {
    operationId: "getWebhookEndpoint",
    summary: "One webhook endpoint",
    description: "An endpoint of the calling business, without its secret.",
    security: SIGNED,
    tags: ["Webhooks"],
    parameters: readParameters(ENDPOINT_ID_PARAMETER),
    responses: {
      200: ok("One webhook endpoint.", Schemas.WebhookEndpointResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or the calling business has no endpoint with this id (`WEBHOOK_NOT_FOUND`).",
        [ErrorCode.WEBHOOK_NOT_FOUND],
      ),
    },
  },
  head: {
    summary: "The endpoint's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /webhooks/:id. */
export function register(app: ContractScope, { webhooks: service }: ApiServices): void {
  byIdRoute(app, contract, (caller, id) => service.get(caller, id));
}
