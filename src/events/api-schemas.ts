import { z } from "zod";
import type { Assert, Describes } from "../core/contracts.js";
import type { Event } from "./event-service.js";

// The public contract of the events endpoints as zod schemas, for the OpenAPI document.

const instant = (description: string) =>
  z.iso
    .datetime()
    .meta({ description: `${description} (UTC, milliseconds).`, examples: ["2026-01-01T09:30:00.000Z"] });

/** What the service tells a business about (what webhooks deliver). */
export const eventTypeSchema = z
  .enum([
    "payment.received",
    "account.expired",
    "account.reissued",
    "account.deactivated",
    "account.reactivated",
    // Issue 46, item 6: who may pay in, changed (PATCH /account/{accountNumber}).
    "account.updated",
    "endpoint.disabled",
    "endpoint.enabled",
    "payout.successful",
    "payout.failed",
    "payout.reversed",
    "refund.successful",
    "refund.failed",
    "settlement.successful",
    "settlement.failed",
    "settlement_account.updated",
    // Issue 46: a credit refused at the notification (the bank reverses it).
    "payment.declined",
    // Issue 46, item 6: held credits.
    "payment.held",
    "payment.accepted",
    "payment.returned",
    // Issue 46, item 7: an operator's block on a credit the payer's bank disputes.
    "payment.blocked",
    "payment.released",
    "webhook.test",
  ])
  .meta({
    description:
      "`payment.received` (data: the transaction, with `payment` `{expectedAmount, amountPaid, variance}` " +
      "when the account expects an amount, else `null`), `account.expired` (data: the account as listed), " +
      "`account.reissued` (data: `email`, `previousAccountNumber`, `accountNumber`, `accountName`, `bankName`, " +
      "`reissuedAt`), `account.deactivated`, `account.reactivated` and `account.updated` (its `allowedPayers` or " +
      "`onMismatch` changed) (data: the account's detail), " +
      "`endpoint.disabled` and `endpoint.enabled` (data: the webhook endpoint, to the business's other " +
      "endpoints), `payment.declined` (data: `accountNumber`, `amount`, `currency`, `sessionId`, `payer`, " +
      "`reason` `{code, message}`, `declinedAt`: a credit refused at the notification, which the bank " +
      "reverses), `payment.held` (data: the transaction, `held`, with `reason` `{code, message}`: a credit " +
      "its account's rules do not take, under `onMismatch: hold`), `payment.accepted` (data: the " +
      "transaction, `successful`, with the fee taken at its acceptance), `payment.returned` (data: " +
      "`transactionId`, `accountNumber`, `amount` returned, `sessionId`, `status` `returned`, the `refund` payout " +
      "that returns it, `returnedAt`; for a block's return, the `block` too), " +
      "`payment.blocked` and `payment.released` (data: the block `{id, transactionId, accountNumber, sessionId, " +
      "amount, currency, reason, state, refundId, blockedAt, decidedAt}`: an operator's block on a credit its payer's " +
      "bank disputes, out of the available balance into held, and its release back), `webhook.test` (sent on request to one endpoint).",
  });

/** Where an event's delivery to one endpoint stands. */
export const deliveryStateSchema = z.enum(["pending", "delivered", "failed", "cancelled"]);

export const deliverySchema = z
  .strictObject({
    endpointId: z.string().meta({ examples: ["we_0b8f1c2d3e4f5a6b7c8d9e0f1a2b3c4d"] }),
    state: deliveryStateSchema.meta({
      description:
        "`pending` (due at `nextAttemptAt`, or, with `nextAttemptAt` null, waiting for an earlier " +
        "event of the same account to settle), `delivered` (a 2xx was received), `failed` (every retry " +
        "failed, or the endpoint was disabled), `cancelled` (the endpoint was deleted).",
    }),
    attempts: z.int().min(0),
    nextAttemptAt: instant(
      "When the next attempt is due; `null` unless pending, and while an earlier event of the same account goes first",
    ).nullable(),
    lastStatus: z
      .int()
      .nullable()
      .meta({ description: "The HTTP status of the last attempt, if it got one." }),
    lastError: z.string().nullable().meta({ description: "Why the last attempt failed, when it did." }),
    deliveredAt: instant("When it was delivered").nullable(),
  })
  .meta({ description: "An event's delivery to one endpoint." });

export const eventSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^evt_[0-9a-f]{32}$/)
      .meta({ examples: ["evt_1d7f0c2a4e8a4c559a570d2f4f1e9b1a"] }),
    type: eventTypeSchema,
    sequence: z.int().min(1).meta({
      description: "1, 2, 3... per business, without gaps, in the order the changes committed.",
    }),
    accountNumber: z
      .string()
      .nullable()
      .meta({ description: "The account number the event concerns, when it concerns one." }),
    createdAt: instant("When the change it describes was recorded"),
    data: z.unknown().meta({ description: "The event's payload: see `type`." }),
    deliveries: z.array(deliverySchema).meta({ description: "One per endpoint it is delivered to." }),
  })
  .meta({ description: "Something that happened to the business's accounts or money." });

/** Query parameters of GET /events (page and limit as for the account list). */
export const eventQuerySchema = z.object({
  type: eventTypeSchema.optional().meta({ description: "Only events of this type." }),
});

/** Compiles only while the response schema describes exactly what EventService returns. */
export type EventSchemasMatchService = [Assert<Describes<typeof eventSchema, Event>>];
