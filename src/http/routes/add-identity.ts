import { identityInput } from "../../accounts/validation.js";
import { ErrorCode } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
  failure,
  GENERATE_FAILURES,
  headers,
  json,
  lifecycleOperation,
  ok,
  type RouteContract,
  STORAGE_UNAVAILABLE,
} from "../openapi-components.js";
import { accountWriteRoute } from "../write-operations.js";

// A lifecycle operation's signing, tags, parameters and 404, with a body and answers of its own.
const LIFECYCLE = lifecycleOperation(
  "addAccountIdentity",
  "Add the BVN or NIN an account lacks, raising its tier",
  "",
);

/** This route's operation in the OpenAPI document (issue 46, item 5). */
export const contract = {
  method: "post",
  path: "/account/:accountNumber(^\\d{10}$)/identity",
  operation: {
    ...LIFECYCLE,
    description:
      "The bank is asked whose name the number is registered in; unless that name and the account's " +
      'customer name share at least two words (the rule of docs/api.md, "Identity tiers"), the identity is ' +
      "refused (422 `IDENTITY_MISMATCH`). Added, the account holds a BVN and a NIN: tier 2, and its " +
      "limits from this answer on. The same identity again answers 200 with the account as it is; " +
      "another once the account holds both, or the kind it holds already, is 409 `CONFLICT`. The number is never stored or returned " +
      "(a keyed fingerprint and its last 4 digits are kept).",
    requestBody: { required: true, content: json(Schemas.IdentityRequest) },
    responses: {
      200: ok("The account, with its tier now.", Schemas.AccountDetailResponse, "Idempotent-Replayed"),
      // The generate's refusals of a body and of the customer, as they are for an identity added.
      ...GENERATE_FAILURES,
      404: LIFECYCLE.responses[404],
      409: failure(
        409,
        "The account holds this kind of identity already, or a BVN and a NIN and this is neither " +
          "(`CONFLICT`), or a request with " +
          "this signature or Idempotency-Key is still running (`REQUEST_IN_PROGRESS`).",
        [ErrorCode.CONFLICT, ErrorCode.REQUEST_IN_PROGRESS],
        headers("Idempotent-Replayed"),
      ),
      503: STORAGE_UNAVAILABLE,
    },
  },
} satisfies RouteContract;

/** POST /account/:accountNumber/identity: 200 with the account and its tier. */
export function register(app: ContractScope, { lifecycle }: ApiServices): void {
  accountWriteRoute(app, contract, identityInput, (business, actor, number, identity, unit) =>
    lifecycle.addIdentity(business, actor, number, identity, unit),
  );
}
