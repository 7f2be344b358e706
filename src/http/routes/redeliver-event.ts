import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { redeliveryInput } from "../../webhooks/redelivery.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { EVENT_ID_PARAMETER, writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/events/:id/redeliver",
  operation: writeOperation({
    operationId: "redeliverEvent",
    summary: "Deliver an event again",
    description:
      "To `endpointId`, or to every enabled endpoint that had it or takes its type; now, with the same `webhook-id`. A delivery waiting for its next retry is made due now; one being attempted is not sent twice at once.",
    tag: "Events",
    pathParameter: EVENT_ID_PARAMETER,
    requestBody: { schema: Schemas.RedeliverRequest, required: false },
    success: { status: 202, description: "Queued.", schema: Schemas.QueuedResponse },
    notFound: {
      description:
        "No route (`NOT_FOUND`), or no such event (`EVENT_NOT_FOUND`) or endpoint (`WEBHOOK_NOT_FOUND`) of the calling business.",
      codes: [ErrorCode.EVENT_NOT_FOUND, ErrorCode.WEBHOOK_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** POST /events/:id/redeliver. */
export function register(app: ContractScope, { redelivery: service }: ApiServices): void {
  writeRoute(app, contract, redeliveryInput, (id, redelivery, business, unit) =>
    service.redeliver(business, id, redelivery, unit),
  );
}
