import type { AccountDetail, AccountLifecycle } from "../../accounts/account-lifecycle.js";
import type { ApiServices } from "../../web/domain-services.js";
import { actorOf, callerOf } from "../authenticate.js";
import { ACCOUNT_NUMBER_PARAMS, type ContractScope } from "../contract-validation.js";
import { answersOf, lifecycleOperation, type RouteContract } from "../openapi-components.js";
import { answerOnce } from "../request-guard.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/account/:accountNumber(^\\d{10}$)/reactivate",
  operation: lifecycleOperation(
    "reactivateAccount",
    "Let a deactivated permanent account take payments again",
    "The account takes transfers again from this answer on. Reactivating an active account changes " +
      "nothing and answers 200.",
  ),
} satisfies RouteContract;

/** Registers a deactivate or reactivate route: a POST without a body, answered once per request. */
export function answerLifecycle(
  app: ContractScope,
  contract: RouteContract,
  lifecycle: AccountLifecycle,
  active: boolean,
): void {
  app.post(
    contract.path,
    { schema: { params: ACCOUNT_NUMBER_PARAMS, response: answersOf(contract) } },
    async (request, reply) =>
      answerOnce<AccountDetail>(
        request,
        reply,
        (unit) =>
          lifecycle.setActive(
            callerOf(request),
            actorOf(request),
            request.params.accountNumber,
            active,
            unit,
          ),
        (account) => ({ statusCode: 200, body: { status: "success", data: account } }),
      ),
  );
}

/** POST /account/:accountNumber/reactivate: 200 with the account, active. */
export function register(app: ContractScope, { lifecycle }: ApiServices): void {
  answerLifecycle(app, contract, lifecycle, true);
}
