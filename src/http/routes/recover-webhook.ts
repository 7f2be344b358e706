import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { ENDPOINT_ID_PARAMETER, writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/webhooks/:id/recover",
  operation: writeOperation({
    operationId: "recoverWebhookEndpoint",
    summary: "Re-send every event since a time to an endpoint",
    description:
      "Recovery after an outage on your side: every event created at or after `since` that the endpoint takes is delivered again (same `webhook-id`s: dedupe on them). Events still pending keep their schedule. A disabled endpoint must be enabled first (400).",
    tag: "Webhooks",
    pathParameter: ENDPOINT_ID_PARAMETER,
    requestBody: { schema: Schemas.RecoverRequest, required: true },
    success: { status: 202, description: "Queued.", schema: Schemas.QueuedResponse },
    notFound: {
      description:
        "No route (`NOT_FOUND`), or the calling business has no endpoint with this id (`WEBHOOK_NOT_FOUND`).",
      codes: [ErrorCode.WEBHOOK_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** POST /webhooks/:id/recover. */
export function register(app: ContractScope, { redelivery: service }: ApiServices): void {
  writeRoute(app, contract, service.recoveryInput, (id, recovery, business, unit) =>
    service.recover(business, id, recovery, unit),
  );
}
