import { listQuery } from "../../core/validation.js";
import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
  EVERYWHERE,
  failure,
  headers,
  ok,
  PARAMETERS,
  type RouteContract,
  SIGNED,
} from "../openapi-components.js";
import { pageRoute } from "../read-routes.js";

/** This route's operation in the OpenAPI document (openapi.ts derives the HEAD beside it). */
export const contract = {
  method: "get",
  path: "/account/list",
  operation: {
    operationId: "listAccounts",
    summary: "List the business's accounts",
    description:
      "The calling business's accounts, permanent and temporary (expired ones included), newest first. " +
      "A page past the end is an empty `data` with the true `total` and `pages`.",
    security: SIGNED,
    tags: ["Accounts"],
    parameters: [PARAMETERS.SignatureVersion, PARAMETERS.Page, PARAMETERS.Limit, PARAMETERS.RequestId],
    responses: {
      200: ok("One page of accounts.", Schemas.AccountListResponse),
      400: failure(
        400,
        "`page` or `limit` is not a whole number in range (`VALIDATION_FAILED`), or the HTTP layer " +
          "refused the request (`BAD_REQUEST`).",
        [ErrorCode.VALIDATION_FAILED, ErrorCode.BAD_REQUEST],
      ),
      ...EVERYWHERE,
      503: failure(
        503,
        "The database is unreachable: nothing changed, retry.",
        [ErrorCode.SERVICE_UNAVAILABLE],
        headers("Retry-After"),
      ),
    },
  },
  head: {
    summary: "The list's status and headers, without the body",
    description:
      "Answered as GET is, with the same signing (the body signed is `{}`, or nothing), checks, " +
      "status and headers, and no body: for example to check the keys and the signature.",
  },
} satisfies RouteContract;

/** GET /account/list?page&limit: the caller's accounts, newest first. */
export function register(app: ContractScope, { accounts }: ApiServices): void {
  pageRoute(app, contract, listQuery, (caller, query) => accounts.list(caller, query));
}
