import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import {
  answersOf,
  ok,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/webhooks",
  operation: {
    operationId: "listWebhookEndpoints",
    summary: "The business's webhook endpoints",
    description: "Every endpoint of the calling business (at most 10), oldest first, without secrets.",
    security: SIGNED,
    tags: ["Webhooks"],
    parameters: readParameters(),
    responses: {
      200: ok("The business's webhook endpoints.", Schemas.WebhookEndpointListResponse),
      ...readFailures("No route (`NOT_FOUND`).", []),
    },
  },
  head: {
    summary: "The endpoint list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /webhooks. */
export function register(app: ContractScope, { webhooks: service }: ApiServices): void {
  app.get(contract.path, { schema: { response: answersOf(contract) } }, async (request) => ({
    status: "success",
    data: await service.list(callerOf(request)),
  }));
}
