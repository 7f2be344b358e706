import { z } from "zod";
import {
  accountDetailSchema,
  accountSummarySchema,
  paginationSchema,
  permanentAccountSchema,
  temporaryAccountSchema,
} from "../accounts/answer-schemas.js";
import { permanentRequestSchema, temporaryRequestSchema } from "../accounts/api-schemas.js";
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

// The document's schemas: the domain's zod schemas of every body and answer, converted, and the
// `success`, page and failure envelopes around them.

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

/** Component schemas, named; references between them become `$ref`s. */
export function componentSchemas(): Record<string, unknown> {
  const named = z.registry<{ id: string }>();
  const add = (schema: z.ZodType, id: string) => named.add(schema, { id });
  add(permanentRequestSchema, "PermanentAccountRequest");
  add(temporaryRequestSchema, "TemporaryAccountRequest");
  add(permanentAccountSchema, "PermanentAccount");
  add(temporaryAccountSchema, "TemporaryAccount");
  add(accountSummarySchema, "AccountSummary");
  add(paginationSchema, "Pagination");
  add(success(permanentAccountSchema), "PermanentAccountResponse");
  add(success(temporaryAccountSchema), "TemporaryAccountResponse");
  add(page(accountSummarySchema), "AccountListResponse");
  add(accountDetailSchema, "AccountDetail");
  add(success(accountDetailSchema), "AccountDetailResponse");
  add(transactionSchema, "Transaction");
  add(success(transactionSchema), "TransactionResponse");
  add(page(transactionSchema), "TransactionListResponse");
  add(balanceSchema, "Balance");
  add(success(balanceSchema), "BalanceResponse");
  add(sandboxTransferRequestSchema, "SandboxTransferRequest");
  add(requeryRequestSchema, "RequeryRequest");
  add(endpointSchema, "WebhookEndpoint");
  add(success(endpointSchema), "WebhookEndpointResponse");
  add(success(endpointWithSecretSchema), "WebhookEndpointWithSecretResponse");
  add(success(z.array(endpointSchema).max(10)), "WebhookEndpointListResponse");
  add(createEndpointRequestSchema, "CreateWebhookEndpointRequest");
  add(updateEndpointRequestSchema, "UpdateWebhookEndpointRequest");
  add(redeliverRequestSchema, "RedeliverRequest");
  add(recoverRequestSchema, "RecoverRequest");
  add(success(queuedSchema), "QueuedResponse");
  add(success(testEventSchema), "TestEventResponse");
  add(success(z.strictObject({ id: z.string(), deleted: z.literal(true) })), "DeletedResponse");
  add(success(z.array(attemptSchema)), "DeliveryAttemptListResponse");
  add(bankSchema, "Bank");
  add(success(z.array(bankSchema)), "BankListResponse");
  add(resolvedBankAccountSchema, "ResolvedBankAccount");
  add(success(resolvedBankAccountSchema), "ResolvedBankAccountResponse");
  add(sandboxPayoutAccountSchema, "SandboxPayoutAccount");
  add(success(z.array(sandboxPayoutAccountSchema)), "SandboxPayoutAccountListResponse");
  add(payoutRequestSchema, "PayoutRequest");
  add(refundRequestSchema, "RefundRequest");
  add(payoutSchema, "Payout");
  add(success(payoutSchema), "PayoutResponse");
  add(page(payoutSchema), "PayoutListResponse");
  add(settlementSchema, "Settlement");
  add(success(settlementSchema), "SettlementResponse");
  add(page(settlementSchema), "SettlementListResponse");
  add(eventSchema, "Event");
  add(success(eventSchema), "EventResponse");
  add(page(eventSchema), "EventListResponse");
  add(failSchema, "Fail");
  add(internalErrorSchema, "InternalError");
  const { schemas } = z.toJSONSchema(named, {
    target: "draft-2020-12",
    io: "output",
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Each becomes part of the OpenAPI document, not a schema document of its own.
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}
