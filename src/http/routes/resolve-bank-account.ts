import { ErrorCode } from "../../errors.js";
import { accountAtBankQuery } from "../../payouts/banks.js";
import type { ApiServices } from "../../web/domain-services.js";
import { Schemas } from "../answers.js";
import type { ContractScope } from "../contract-validation.js";
import {
  answersOf,
  BANK_UNAVAILABLE,
  EVERYWHERE,
  failure,
  ok,
  type RouteContract,
  readParameters,
  SIGNED,
  STORAGE_UNAVAILABLE,
} from "../openapi-components.js";

const query = (name: string, description: string, pattern: string, example: string) => ({
  name,
  in: "query",
  required: true,
  description,
  schema: { type: "string", pattern, examples: [example] },
});

/** This route's operation in the OpenAPI document. */
export const contract = {
  method: "get",
  path: "/banks/resolve",
  operation: {
    operationId: "resolveBankAccount",
    summary: "The name on an account at a bank (name enquiry)",
    description:
      "Asks the account's bank for the name it holds, before any money is sent: show it to the " +
      "person sending. The number is checked first: 10 digits, and the CBN NUBAN check digit for " +
      "banks with a 3-digit code (a typo is refused with a 400 before any bank is asked).",
    security: SIGNED,
    tags: ["Banks"],
    parameters: readParameters(
      query("bankCode", "A bank's `code` from `GET /banks`.", "^\\d{3,6}$", "058"),
      query("accountNumber", "The 10-digit account number (NUBAN).", "^\\d{10}$", "1234567896"),
    ),
    responses: {
      200: ok("The account and its name.", Schemas.ResolvedBankAccountResponse),
      400: failure(
        400,
        "`bankCode` or `accountNumber` is missing, malformed, repeated or not a bank of `GET /banks`, " +
          "the number fails its bank's check digit (`VALIDATION_FAILED`), or the HTTP layer refused " +
          "the request (`BAD_REQUEST`).",
        [ErrorCode.VALIDATION_FAILED, ErrorCode.BAD_REQUEST],
      ),
      ...EVERYWHERE,
      422: failure(422, "The bank has no account with this number (`ACCOUNT_NOT_RESOLVED`).", [
        ErrorCode.ACCOUNT_NOT_RESOLVED,
      ]),
      502: BANK_UNAVAILABLE,
      503: STORAGE_UNAVAILABLE,
    },
  },
  head: {
    summary: "The name enquiry's status and headers, without the body",
    description: "Answered as GET is, with the same signing, checks, status and headers, and no body.",
  },
} satisfies RouteContract;

/** GET /banks/resolve?bankCode&accountNumber. */
export function register(app: ContractScope, { banks }: ApiServices): void {
  app.get(
    contract.path,
    { schema: { querystring: accountAtBankQuery, response: answersOf(contract) } },
    async (request) => ({
      status: "success",
      data: await banks.resolve(request.query),
    }),
  );
}
