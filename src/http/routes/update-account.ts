import { accountUpdateInput } from "../../accounts/validation.js";
import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import { ACCOUNT_NUMBER_PARAMETER, type RouteContract } from "../openapi-components.js";
import { accountWriteRoute, writeOperation } from "../write-operations.js";

/** This route's operation in the OpenAPI document (issue 46, item 6). */
export const contract = {
  method: "patch",
  path: "/account/:accountNumber(^\\d{10}$)",
  operation: writeOperation({
    operationId: "updateAccount",
    summary: "Change who may pay into an account, and what a credit from anyone else becomes",
    description:
      "Sets `allowedPayers` (`null`: anyone may pay) and/or `onMismatch` on a permanent or a temporary " +
      "account, as generate sets them. They apply from the next credit on: a credit being applied as the " +
      "change arrives keeps the rules it was read under. A change records `account.updated` (data: the " +
      "account's detail); a body that asks for what the account already has answers it as it is, with no event.",
    tag: "Accounts",
    pathParameter: ACCOUNT_NUMBER_PARAMETER,
    requestBody: { schema: Schemas.AccountUpdateRequest, required: true },
    success: {
      status: 200,
      description: "The account, as GET /account/{accountNumber} answers it now.",
      schema: Schemas.AccountDetailResponse,
    },
    notFound: {
      description:
        "No route (`NOT_FOUND`: also a path segment that is not 10 digits), or no current account of the " +
        "calling business has this number (`ACCOUNT_NOT_FOUND`: another business's, an unknown or a retired number alike).",
      codes: [ErrorCode.ACCOUNT_NOT_FOUND],
    },
  }),
} satisfies RouteContract;

/** PATCH /account/:accountNumber: 200 with the account and its rules now. */
export function register(app: ContractScope, { lifecycle }: ApiServices): void {
  accountWriteRoute(app, contract, accountUpdateInput, (business, actor, number, update, unit) =>
    lifecycle.update(business, actor, number, update, unit),
  );
}
