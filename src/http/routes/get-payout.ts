import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
  ok,
  pathParameter,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";
import { byIdRoute } from "../read-routes.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/payouts/:id",
  operation: {
    operationId: "getPayout",
    summary: "One payout",
    description: "A payout of the calling business, by its id: where it stands now.",
    security: SIGNED,
    tags: ["Payouts"],
    parameters: readParameters(
      pathParameter("id", "The payout's id, as POST /payouts answered it.", {
        type: "string",
        examples: ["po_3c1e9b1a5f0c2a4e8a8e4c559a570d2f"],
      }),
    ),
    responses: {
      200: ok("The payout.", Schemas.PayoutResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or the calling business has no payout with this id " +
          "(`PAYOUT_NOT_FOUND`: another business's alike).",
        [ErrorCode.PAYOUT_NOT_FOUND],
      ),
    },
  },
  head: {
    summary: "The payout's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /payouts/:id. */
export function register(app: ContractScope, { payoutListing }: ApiServices): void {
  byIdRoute(app, contract, (caller, id) => payoutListing.get(caller, id));
}
