import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { ENDPOINT_ID_PARAMETER, NO_FIELDS, writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/webhooks/:id/rotate-secret",
  operation: writeOperation({
    operationId: "rotateWebhookSecret",
    summary: "Give a webhook endpoint a new secret",
    description:
      "Answers the new secret, once. For the next 24 hours every delivery carries signatures by the old and the new secret, space-separated, so receivers can switch without losing one.",
    tag: "Webhooks",
    pathParameter: ENDPOINT_ID_PARAMETER,
    success: {
      status: 200,
      description: "The endpoint and its new secret.",
      schema: Schemas.WebhookEndpointWithSecretResponse,
    },
    notFound: {
      description:
        "No route (`NOT_FOUND`), or the calling business has no endpoint with this id (`WEBHOOK_NOT_FOUND`).",
      codes: [ErrorCode.WEBHOOK_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** POST /webhooks/:id/rotate-secret. */
export function register(app: ContractScope, { webhooks: service }: ApiServices): void {
  writeRoute(app, contract, NO_FIELDS, (id, _input, business, unit) =>
    service.rotateSecret(business, id, unit),
  );
}
