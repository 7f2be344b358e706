import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { ENDPOINT_ID_PARAMETER, NO_FIELDS, writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "delete",
  path: "/webhooks/:id",
  operation: writeOperation({
    operationId: "deleteWebhookEndpoint",
    summary: "Delete a webhook endpoint",
    description:
      "It gets nothing more: its pending deliveries are cancelled. Its past attempts stay readable on the events.",
    tag: "Webhooks",
    pathParameter: ENDPOINT_ID_PARAMETER,
    success: { status: 200, description: "Deleted.", schema: Schemas.DeletedResponse },
    notFound: {
      description:
        "No route (`NOT_FOUND`), or the calling business has no endpoint with this id (`WEBHOOK_NOT_FOUND`).",
      codes: [ErrorCode.WEBHOOK_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** DELETE /webhooks/:id. */
export function register(app: ContractScope, { webhooks: service }: ApiServices): void {
  writeRoute(app, contract, NO_FIELDS, (id, _input, business, unit) => service.remove(business, id, unit));
}
