import type { FastifyInstance } from "fastify";
import type { CollectionService } from "../../collections/collection-service.js";
import { callerOf } from "../authenticate.js";
import { ok, type RouteContract, readFailures, readParameters, SIGNED } from "../openapi-components.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/balance",
  operation: {
    operationId: "getBalance",
    summary: "The business's balance",
    description:
      "Read from the business's ledger accounts (docs/ledger.md), in integer kobo: `available` is " +
      "`totalReceived - totalFees`.",
    security: SIGNED,
    tags: ["Collections"],
    parameters: readParameters(),
    responses: {
      200: ok("The balance.", "BalanceResponse"),
      ...readFailures("No route (`NOT_FOUND`).", []),
    },
  },
  head: {
    summary: "The balance's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /balance. */
export function getBalanceRoute(app: FastifyInstance, collections: CollectionService): void {
  app.get(contract.path, async (request) => ({
    status: "success",
    data: await collections.balance(callerOf(request)),
  }));
}
