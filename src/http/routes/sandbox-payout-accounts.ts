import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
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
  path: "/sandbox/payout-accounts",
  operation: {
    operationId: "listSandboxPayoutAccounts",
    summary: "The sandbox's destination accounts and what a payout to each does (sandbox only)",
    description:
      "Only when the server runs with SANDBOX=true and the embedded bank, as `POST /sandbox/transfers`; " +
      "otherwise this route does not exist (404). Each account resolves in `GET /banks/resolve` (but " +
      'the `unresolvable` one) and always has the same `outcome`: `successful`, `failed` ("account ' +
      'dormant"), `reversed` (sent back after success) or `unresolvable` (its `accountName` is null). ' +
      "Their bank codes are in `GET /banks`.",
    security: SIGNED,
    tags: ["Sandbox"],
    parameters: readParameters(),
    responses: {
      200: ok("The destination accounts.", Schemas.SandboxPayoutAccountListResponse),
      ...readFailures("No route (`NOT_FOUND`: also when the sandbox is off)."),
    },
  },
  head: {
    summary: "The destination accounts' status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /sandbox/payout-accounts. */
export function register(app: ContractScope, { banks, sandbox }: ApiServices): void {
  // Documented always (the document says when it is off); served in the sandbox only.
  if (!sandbox) return;
  app.get(contract.path, { schema: { response: answersOf(contract) } }, async () => ({
    status: "success",
    data: banks.sandboxPayoutAccounts(),
  }));
}
