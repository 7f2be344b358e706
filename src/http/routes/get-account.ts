import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import { callerOf } from "../authenticate.js";
import { ACCOUNT_NUMBER_PARAMS, type ContractScope } from "../contract-validation.js";
import {
  ACCOUNT_NUMBER_PARAMETER,
  answersOf,
  ok,
  type RouteContract,
  readFailures,
  readParameters,
  SIGNED,
} from "../openapi-components.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/account/:accountNumber(^\\d{10}$)",
  operation: {
    operationId: "getAccount",
    summary: "An account, its status and what it has received",
    description:
      "The list item's fields plus `expectedAmount` and `totalReceived` (integer kobo). `status` is " +
      "computed when read, so it is exact at any instant.",
    security: SIGNED,
    tags: ["Accounts"],
    parameters: readParameters(ACCOUNT_NUMBER_PARAMETER),
    responses: {
      200: ok("The account.", Schemas.AccountDetailResponse),
      ...readFailures(
        "No route (`NOT_FOUND`: also a path segment that is not 10 digits), or no current account of the calling business has this number " +
          "(`ACCOUNT_NOT_FOUND`: another business's or an unknown number alike), or it is one of the calling business's " +
          "numbers that a re-issue replaced (`ACCOUNT_RETIRED`: the message names the account's number now).",
        [ErrorCode.ACCOUNT_NOT_FOUND, ErrorCode.ACCOUNT_RETIRED],
      ),
    },
  },
  head: {
    summary: "The account's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /account/:accountNumber: one of the caller's accounts. */
export function register(app: ContractScope, { lifecycle }: ApiServices): void {
  app.get(
    contract.path,
    { schema: { params: ACCOUNT_NUMBER_PARAMS, response: answersOf(contract) } },
    async (request) => ({
      status: "success",
      data: await lifecycle.get(callerOf(request), request.params.accountNumber),
    }),
  );
}
