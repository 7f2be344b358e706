import type { FastifyInstance } from "fastify";
import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import type { RouteContract } from "../openapi-components.js";
import { ENDPOINT_ID_PARAMETER, writeOperation, writeRoute } from "../write-operations.js";

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
    success: { status: 200, description: "Deleted.", schema: "DeletedResponse" },
    notFound: {
      description:
        "No route (`NOT_FOUND`), or the calling business has no endpoint with this id (`WEBHOOK_NOT_FOUND`).",
      codes: [ErrorCode.WEBHOOK_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** DELETE /webhooks/:id. */
export function register(app: FastifyInstance, { webhooks: service }: ApiServices): void {
  writeRoute(app, "DELETE", contract.path, 200, (request, _body, business, unit) =>
    service.remove(business, request.params.id, unit),
  );
}
