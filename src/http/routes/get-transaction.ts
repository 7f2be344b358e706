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
  path: "/transactions/:id",
  operation: {
    operationId: "getTransaction",
    summary: "One transaction",
    description: "A transaction of the calling business, by its id.",
    security: SIGNED,
    tags: ["Collections"],
    parameters: readParameters(
      pathParameter("id", "The transaction's id, as the list and the sandbox answer it.", {
        type: "string",
        examples: ["txn_5f0c2a4e8a8e4c559a570d2f4f1e9b1a"],
      }),
    ),
    responses: {
      200: ok("The transaction.", Schemas.TransactionResponse),
      ...readFailures(
        "No route (`NOT_FOUND`), or the calling business has no transaction with this id " +
          "(`TRANSACTION_NOT_FOUND`: another business's alike).",
        [ErrorCode.TRANSACTION_NOT_FOUND],
      ),
    },
  },
  head: {
    summary: "The transaction's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /transactions/:id. */
export function register(app: ContractScope, { collections }: ApiServices): void {
  byIdRoute(app, contract, (caller, id) => collections.getTransaction(caller, id));
}
