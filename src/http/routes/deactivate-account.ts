import type { ApiServices } from "../../web/domain-services.js";
import type { ContractScope } from "../contract-validation.js";
import { lifecycleOperation, type RouteContract } from "../openapi-components.js";
import { answerLifecycle } from "./reactivate-account.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/account/:accountNumber(^\\d{10}$)/deactivate",
  operation: lifecycleOperation(
    "deactivateAccount",
    "Stop a permanent account taking payments",
    "Transfers into a deactivated account are refused at the bank: nothing is credited or held. " +
      "Deactivating a deactivated account changes nothing and answers 200. Generating again for the " +
      "customer's email re-issues the account and reactivates it. Temporary accounts end at their " +
      "`expiresAt` instead (422 `ACCOUNT_NOT_PERMANENT`).",
  ),
} satisfies RouteContract;

/** POST /account/:accountNumber/deactivate: 200 with the account, deactivated. */
export function register(app: ContractScope, { lifecycle }: ApiServices): void {
  answerLifecycle(app, contract, lifecycle, false);
}
