import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import { ok, type RouteContract, readFailures, readParameters, SIGNED } from "../openapi-components.js";
import { byIdRoute } from "../read-routes.js";
import { SETTLEMENT_ID_PARAMETER } from "./list-settlement-transactions.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/settlements/:id",
  operation: {
    operationId: "getSettlement",
    summary: "One settlement",
    description:
      "A settlement of the calling business, by its id: its payout's status now, and what it covered.",
    security: SIGNED,
    tags: ["Settlements"],
    parameters: readParameters(SETTLEMENT_ID_PARAMETER),
    responses: {
      200: ok("The settlement.", Schemas.SettlementResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or the calling business has no settlement with this id " +
          "(`SETTLEMENT_NOT_FOUND`: another business's alike).",
        [ErrorCode.SETTLEMENT_NOT_FOUND],
      ),
    },
  },
  head: {
    summary: "The settlement's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /settlements/:id. */
export function register(app: ContractScope, { settlements }: ApiServices): void {
  byIdRoute(app, contract, (caller, id) => settlements.get(caller, id));
}
