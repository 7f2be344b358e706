import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
  answersOf,
  BANK_UNAVAILABLE,
  ok,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/banks",
  operation: {
    operationId: "listBanks",
    summary: "The banks money can be sent to",
    description:
      "Every bank a payout can go to, by CBN code, as the partner bank lists them (kept by the " +
      "service for ten minutes). Use a `code` from here in `GET /banks/resolve` and in payouts.",
    security: SIGNED,
    tags: ["Banks"],
    parameters: readParameters(),
    responses: {
      200: ok("The banks.", Schemas.BankListResponse),
      ...readFailures("No route (`NOT_FOUND`)."),
      502: BANK_UNAVAILABLE,
    },
  },
  head: {
    summary: "The bank list's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /banks. */
export function register(app: ContractScope, { banks }: ApiServices): void {
  app.get(contract.path, { schema: { response: answersOf(contract) } }, async () => ({
    status: "success",
    data: await banks.list(),
  }));
}
