import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { ENDPOINT_ID_PARAMETER, writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "patch",
  path: "/webhooks/:id",
  operation: writeOperation({
    operationId: "updateWebhookEndpoint",
    summary: "Change a webhook endpoint",
    description:
      "Changes its `url`, its `events`, or whether it is `enabled`. Enabling clears the reason it was disabled and its run of failures; disabling ends its pending deliveries.",
    tag: "Webhooks",
    pathParameter: ENDPOINT_ID_PARAMETER,
    requestBody: { schema: Schemas.UpdateWebhookEndpointRequest, required: true },
    success: {
      status: 200,
      description: "The endpoint, as it now is.",
      schema: Schemas.WebhookEndpointResponse,
    },
    notFound: {
      description:
        "No route (`NOT_FOUND`), or the calling business has no endpoint with this id (`WEBHOOK_NOT_FOUND`).",
      codes: [ErrorCode.WEBHOOK_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** PATCH /webhooks/:id. */
export function register(app: ContractScope, { webhooks: service }: ApiServices): void {
  writeRoute(app, contract, service.inputs.update, (id, change, business, unit) =>
    service.update(business, id, change, unit),
  );
}
