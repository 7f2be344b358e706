import { sandboxTransferInputFor } from "../../collections/validation.js";
import { ErrorCode, TRANSFER_REFUSALS } from "../../errors.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import type { RouteContract } from "../openapi-components.js";
import { writeOperation, writeRoute } from "../write-operations.js";

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "post",
  path: "/sandbox/transfers",
  operation: writeOperation({
    operationId: "createSandboxTransfer",
    summary: "Simulate a transfer into one of your accounts (sandbox only)",
    description:
      "Only when the server runs with SANDBOX=true (the default outside production) and the embedded " +
      "bank (PROVIDER=embedded, the default); otherwise this route does not exist (404). The embedded Virtual Bank sends a transfer in NGN into one of the " +
      "calling business's accounts through the same path a real bank's notification takes: the " +
      "acceptance rules apply, fees are taken and the ledger is posted. Every amount is integer kobo.",
    tag: "Sandbox",
    requestBody: { schema: Schemas.SandboxTransferRequest, required: true },
    success: { status: 201, description: "Credited: the transaction.", schema: Schemas.TransactionResponse },
    notFound: {
      description:
        "No route (`NOT_FOUND`: also when the sandbox is off), or the number is not one of the calling " +
        "business's (`ACCOUNT_NOT_FOUND`).",
      codes: [ErrorCode.ACCOUNT_NOT_FOUND],
    },
    unprocessable: {
      description:
        "The transfer was refused at the bank, nothing credited or held: the code says why (docs/api.md, " +
        "Inbound transfers)",
      codes: [...TRANSFER_REFUSALS],
    },
  }),
} satisfies RouteContract;

/** POST /sandbox/transfers: 201 with the transaction, or 422 with the refusal. */
export function register(app: ContractScope, { collections, sandbox, maxTransferKobo }: ApiServices): void {
  // Documented always (the document says when it is off); served in the sandbox only.
  if (!sandbox) return;
  writeRoute(
    app,
    contract,
    sandboxTransferInputFor(maxTransferKobo),
    (_id, input, business, unit) => collections.sandboxTransfer(business, input, unit),
    ({ transaction }) => transaction,
  );
}
