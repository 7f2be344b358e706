import { balanceQuery } from "../../collections/validation.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import {
  answersOf,
  ok,
  PARAMETERS,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/balance",
  operation: {
    operationId: "getBalance",
    summary: "The business's balance",
    description:
      "Read from the business's ledger accounts (docs/ledger.md), in integer kobo: " +
      "`totalReceived = available + pending + totalPaidOut + totalFees + totalVat + totalStampDuty`, always. With `at`, the balance as it stood then: the balance after each " +
      "ledger account's last entry at or before that instant, an index lookup (never a sum over history).",
    security: SIGNED,
    tags: ["Collections"],
    parameters: readParameters(PARAMETERS.BalanceAt),
    responses: {
      200: ok("The balance.", Schemas.BalanceResponse),
      ...readFailures(
        "No route (`NOT_FOUND`).",
        [],
        "`at` is not an ISO 8601 date-time with a zone (`VALIDATION_FAILED`), or the HTTP layer refused " +
          "the request (`BAD_REQUEST`).",
      ),
    },
  },
  head: {
    summary: "The balance's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /balance. */
export function register(app: ContractScope, { collections }: ApiServices): void {
  app.get(
    contract.path,
    { schema: { querystring: balanceQuery, response: answersOf(contract) } },
    async (request) => ({
      status: "success",
      data: await collections.balance(callerOf(request), request.query),
    }),
  );
}
