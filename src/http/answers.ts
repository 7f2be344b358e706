import { z } from "zod";
import {
  accountDetailSchema,
  accountSummarySchema,
  paginationSchema,
  permanentAccountSchema,
  temporaryAccountSchema,
} from "../accounts/answer-schemas.js";
import {
  accountUpdateRequestSchema,
  identityRequestSchema,
  permanentRequestSchema,
  temporaryRequestSchema,
} from "../accounts/api-schemas.js";
import {
  balanceSchema,
  requeryRequestSchema,
  sandboxTransferRequestSchema,
  transactionSchema,
} from "../collections/api-schemas.js";
import { ErrorCode } from "../errors.js";
import { eventSchema } from "../events/api-schemas.js";
import {
  bankSchema,
  payoutRequestSchema,
  payoutSchema,
  refundRequestSchema,
  resolvedBankAccountSchema,
  sandboxPayoutAccountSchema,
  settlementSchema,
} from "../payouts/api-schemas.js";
import {
  attemptSchema,
  createEndpointRequestSchema,
  endpointSchema,
  endpointWithSecretSchema,
  queuedSchema,
  recoverRequestSchema,
  redeliverRequestSchema,
  testEventSchema,
  updateEndpointRequestSchema,
} from "../webhooks/api-schemas.js";

// The API's bodies and answers, each a zod schema under the name the OpenAPI document gives it:
// the `success`, page and failure envelopes around the domain's schemas. A route names the ones
// it takes and answers (its `schema.response`, serialized from them); the document's
// `components.schemas` are these, in this order, and an operation refers to them by name.

const failSchema = z
  .strictObject({
    status: z.literal("fail"),
    message: z.string().meta({ description: "Human-readable; validation messages name the field." }),
    error: z.strictObject({
      statusCode: z.int().min(400).max(599).meta({ description: "The HTTP status, repeated." }),
      name: z.literal("AppError"),
      code: z.enum(ErrorCode).meta({ description: "Stable machine-readable code: branch on this." }),
      hint: z
        .string()
        .optional()
        .meta({
          description:
            "What probably went wrong, where the message is the specification's own (a timestamp in seconds, say).",
          examples: [
            "x-timestamp looks like Unix time in seconds: send milliseconds (Date.now() in JavaScript)",
          ],
        }),
    }),
  })
  .meta({ description: "Every deliberate failure (4xx, 502, 503)." });

const internalErrorSchema = z
  .strictObject({
    status: z.literal("fail"),
    error: z
      .string()
      .meta({ examples: ["Internal server error (request id 5f0c2a4e-8a8e-4c55-9a57-0d2f4f1e9b1a)"] }),
    requestId: z
      .string()
      .meta({ description: "The request id; the details are in the server's log under it." }),
  })
  .meta({ description: "An unexpected failure: `error` is a string and there is no `message`." });

const success = <T extends z.ZodType>(data: T) => z.strictObject({ status: z.literal("success"), data });

/** A list's answer: one page of `item`s, newest first, and where the page sits. */
const page = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    status: z.literal("success"),
    data: z.array(item).meta({ description: "Newest first." }),
    pagination: paginationSchema,
  });

/** Every named body and answer, by its name in the document. */
export const Schemas = {
  PermanentAccountRequest: permanentRequestSchema,
  TemporaryAccountRequest: temporaryRequestSchema,
  IdentityRequest: identityRequestSchema,
  AccountUpdateRequest: accountUpdateRequestSchema,
  PermanentAccount: permanentAccountSchema,
  TemporaryAccount: temporaryAccountSchema,
  AccountSummary: accountSummarySchema,
  Pagination: paginationSchema,
  PermanentAccountResponse: success(permanentAccountSchema),
  TemporaryAccountResponse: success(temporaryAccountSchema),
  AccountListResponse: page(accountSummarySchema),
  AccountDetail: accountDetailSchema,
  AccountDetailResponse: success(accountDetailSchema),
  Transaction: transactionSchema,
  TransactionResponse: success(transactionSchema),
  TransactionListResponse: page(transactionSchema),
  Balance: balanceSchema,
  BalanceResponse: success(balanceSchema),
  SandboxTransferRequest: sandboxTransferRequestSchema,
  RequeryRequest: requeryRequestSchema,
  WebhookEndpoint: endpointSchema,
  WebhookEndpointResponse: success(endpointSchema),
  WebhookEndpointWithSecretResponse: success(endpointWithSecretSchema),
  WebhookEndpointListResponse: success(z.array(endpointSchema).max(10)),
  CreateWebhookEndpointRequest: createEndpointRequestSchema,
  UpdateWebhookEndpointRequest: updateEndpointRequestSchema,
  RedeliverRequest: redeliverRequestSchema,
  RecoverRequest: recoverRequestSchema,
  QueuedResponse: success(queuedSchema),
  TestEventResponse: success(testEventSchema),
  DeletedResponse: success(z.strictObject({ id: z.string(), deleted: z.literal(true) })),
  DeliveryAttemptListResponse: success(z.array(attemptSchema)),
  Bank: bankSchema,
  BankListResponse: success(z.array(bankSchema)),
  ResolvedBankAccount: resolvedBankAccountSchema,
  ResolvedBankAccountResponse: success(resolvedBankAccountSchema),
  SandboxPayoutAccount: sandboxPayoutAccountSchema,
  SandboxPayoutAccountListResponse: success(z.array(sandboxPayoutAccountSchema)),
  PayoutRequest: payoutRequestSchema,
  RefundRequest: refundRequestSchema,
  Payout: payoutSchema,
  PayoutResponse: success(payoutSchema),
  PayoutListResponse: page(payoutSchema),
  Settlement: settlementSchema,
  SettlementResponse: success(settlementSchema),
  SettlementListResponse: page(settlementSchema),
  Event: eventSchema,
  EventResponse: success(eventSchema),
  EventListResponse: page(eventSchema),
  Fail: failSchema,
  InternalError: internalErrorSchema,
} as const;

const NAMES = new Map<z.ZodType, string>(Object.entries(Schemas).map(([name, schema]) => [schema, name]));

/** The document's name for `schema`, if it is one of the named ones. */
export const nameOf = (schema: z.ZodType): string | undefined => NAMES.get(schema);
