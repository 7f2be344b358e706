import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { ENDPOINT_ID_PARAMETER, NO_FIELDS, writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/webhooks/:id/test",
  operation: writeOperation({
    operationId: "testWebhookEndpoint",
    summary: "Send a test event to a webhook endpoint",
    description:
      "Queues a `webhook.test` event for this endpoint only; the worker sends it within a second or so, signed like every delivery.",
    tag: "Webhooks",
    pathParameter: ENDPOINT_ID_PARAMETER,
    success: { status: 202, description: "Queued: the test event.", schema: Schemas.TestEventResponse },
    notFound: {
      description:
        "No route (`NOT_FOUND`), or the calling business has no endpoint with this id (`WEBHOOK_NOT_FOUND`).",
      codes: [ErrorCode.WEBHOOK_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** POST /webhooks/:id/test. */
export function register(app: ContractScope, { webhooks: service }: ApiServices): void {
  writeRoute(app, contract, NO_FIELDS, (id, _input, business, unit) => service.sendTest(business, id, unit));
}
