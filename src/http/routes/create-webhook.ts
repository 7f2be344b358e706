import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/webhooks",
  operation: writeOperation({
    operationId: "createWebhookEndpoint",
    summary: "Add a webhook endpoint",
    description:
      "Events are POSTed to `url`, signed as Standard Webhooks says (docs/webhooks.md), with the secret " +
      "this answer shows once. `events` limits the types (default: every type). At most 10 endpoints.",
    tag: "Webhooks",
    requestBody: { schema: Schemas.CreateWebhookEndpointRequest, required: true },
    success: {
      status: 201,
      description: "The endpoint and its secret.",
      schema: Schemas.WebhookEndpointWithSecretResponse,
    },
    notFound: { description: "No route (`NOT_FOUND`).", codes: [] },
    unprocessable: {
      description: "The business has 10 endpoints already (`WEBHOOK_LIMIT_REACHED`)",
      codes: [ErrorCode.WEBHOOK_LIMIT_REACHED],
    },
  }),
} satisfies RouteContract;

/** POST /webhooks: 201 with the endpoint and its secret. */
export function register(app: ContractScope, { webhooks }: ApiServices): void {
  writeRoute(app, contract, webhooks.inputs.create, (_id, input, business, unit) =>
    webhooks.create(business, input, unit),
  );
}
