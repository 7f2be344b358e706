import type { TemporaryAccount } from "../../accounts/account-views.js";
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
  path: "/account/generate/temporary",
  operation: {
    operationId: "generateTemporaryAccount",
    summary: "Create a temporary account",
    description:
      "Every successful call creates a new account that expires `duration` minutes after creation. " +
      "An expired account stays in the list with its past `expiresAt`; its number is never reused.",
    ...generateOperation(Schemas.TemporaryAccountRequest),
    responses: {
      201: ok("Created: a new temporary account.", Schemas.TemporaryAccountResponse, "Idempotent-Replayed"),
      ...GENERATE_FAILURES,
    },
  },
} satisfies RouteContract;

/** POST /account/generate/temporary: always creates a new account (201). */
export function register(app: ContractScope, { accounts }: ApiServices): void {
  app.post(
    contract.path,
    { schema: { body: accounts.temporaryInput, response: answersOf(contract) } },
    async (request, reply) =>
      answerOnce<TemporaryAccount>(
        request,
        reply,
        (unit) => accounts.generateTemporary(callerOf(request), actorOf(request), request.body, unit),
        (account) => ({ statusCode: 201, body: { status: "success", data: account } }),
      ),
  );
}
