import type { GeneratedPermanent } from "../../accounts/account-views.js";
import { permanentInput } from "../../accounts/validation.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { actorOf, callerOf } from "../authenticate.js";
import type { ContractScope } from "../contract-validation.js";
import {
  answersOf,
  GENERATE_FAILURES,
  generateOperation,
  ok,
  type RouteContract,
} from "../openapi-components.js";
import { answerOnce } from "../request-guard.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/account/generate",
  operation: {
    operationId: "generatePermanentAccount",
    summary: "Create or re-issue a customer's permanent account",
    description:
      "One permanent account per business and customer email (compared case-insensitively). The first " +
      "call creates it (201); a later one re-issues it (200) with a new number, the name just sent and " +
      "the same place in the list. The old number is retired for ever. The BVN or NIN is never returned.",
    ...generateOperation(Schemas.PermanentAccountRequest),
    responses: {
      200: ok(
        "Re-issued: the customer already had a permanent account here.",
        Schemas.PermanentAccountResponse,
        "Idempotent-Replayed",
      ),
      201: ok("Created: a new permanent account.", Schemas.PermanentAccountResponse, "Idempotent-Replayed"),
      ...GENERATE_FAILURES,
    },
  },
} satisfies RouteContract;

/** POST /account/generate: 201 when the account was created, 200 when an existing one was re-issued. */
export function register(app: ContractScope, { accounts }: ApiServices): void {
  app.post(
    contract.path,
    { schema: { body: permanentInput, response: answersOf(contract) } },
    async (request, reply) =>
      answerOnce<GeneratedPermanent>(
        request,
        reply,
        (unit) => accounts.generatePermanent(callerOf(request), actorOf(request), request.body, unit),
        ({ created, account }) => ({
          statusCode: created ? 201 : 200,
          body: { status: "success", data: account },
        }),
      ),
  );
}
