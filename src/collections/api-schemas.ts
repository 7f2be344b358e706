import { z } from "zod";
import type { Assert, Describes } from "../core/contracts.js";
import { displayTextOnTheWire, nameOnTheWire } from "../core/wire-text.js";
import { chargeLinesSchema } from "../ledger/charges.js";
import { DEFAULT_MAX_TRANSFER_KOBO } from "../ledger/kobo.js";
import { SANDBOX_PAYER } from "../providers/virtual-bank.js";
import type { Balance, Transaction } from "./collection-service.js";
import {
  MAX_BANK_NAME_LENGTH,
  MAX_NARRATION_LENGTH,
  MAX_PAYER_NAME_LENGTH,
  MAX_SESSION_ID_LENGTH,
  SESSION_ID,
  TIME_FIELDS,
} from "./validation.js";

// The public contract of the collections endpoints as zod schemas, for the OpenAPI document.
// Every amount is integer kobo (NGN 1 = 100 kobo), never a decimal.

const kobo = (description: string) =>
  z.int().meta({ description: `Integer kobo (NGN 1 = 100 kobo). ${description}`, examples: [150000] });
const accountNumber = z
  .string()
  .regex(/^\d{10}$/)
  .meta({ description: "10-digit account number.", examples: ["0184421779"] });
const instant = (description: string) =>
  z.iso
    .datetime()
    .meta({ description: `${description} (UTC, milliseconds).`, examples: ["2026-01-01T09:30:00.000Z"] });

/** A transaction's state (issue 46, item 6): credited, held until the business decides, or returned. */
export const transactionStatusEnum = z.enum(["successful", "held", "returned"]);

/** One transaction: an accepted inbound transfer. */
export const transactionSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^txn_[0-9a-f]{32}$/)
      .meta({ examples: ["txn_5f0c2a4e8a8e4c559a570d2f4f1e9b1a"] }),
    accountNumber: accountNumber.meta({
      description: "The number paid into (the account's number at the time).",
    }),
    amount: kobo("What the payer sent.").min(1),
    fee: kobo("The business's fee on it (0 when it has none).").min(0),
    charges: chargeLinesSchema,
    netAmount: kobo("`amount - fee` less the charges: what the business's available balance gained.").min(0),
    currency: z.literal("NGN"),
    payer: z.strictObject({
      name: z.string().meta({ examples: ["Chinedu Okafor"] }),
      accountNumber: z.string().meta({ examples: ["0123456789"] }),
      bankName: z.string().meta({ examples: ["Example Bank"] }),
      bankCode: z
        .string()
        .nullable()
        .meta({
          description: "The payer's bank's CBN code, when the bank gave it: a refund needs it (null: none).",
          examples: ["058"],
        }),
    }),
    narration: z
      .string()
      .max(MAX_NARRATION_LENGTH)
      .meta({
        description: `What the payer typed, cleaned: no control or bidi-control characters, at most ${MAX_NARRATION_LENGTH} characters.`,
        examples: ["Invoice 1042"],
      }),
    sessionId: z.string().meta({
      description:
        "The bank's unique id for the transfer (what a customer's bank app shows as its reference).",
    }),
    status: transactionStatusEnum.meta({
      description:
        "`successful`: credited to the available balance; `held`: in the held balance (the account's `onMismatch` is `hold`) until it is accepted (then `successful`, its fee taken) or returned to its payer (`returned`).",
    }),
    paidAt: instant("When the bank debited the payer: the value time"),
    createdAt: instant("When the service recorded it: `from` and `to` filter on this"),
    balanceAfter: kobo("The business's available balance right after this transaction."),
    refundedAmount: kobo(
      "Refunded to the payer so far: refunds pending and successful (a failed one frees its amount).",
    ).min(0),
  })
  .meta({ description: "An inbound transfer that was credited." });

/** `data` of GET /balance. */
export const balanceSchema = z
  .strictObject({
    available: kobo("What the business can pay out now: received, less fees, held and paid out.").min(0),
    pending: kobo("Held for payouts the bank has not finished (amount and fee); 0 when none is.").min(0),
    held: kobo(
      "Credits held until the business accepts or returns them (an account's `onMismatch` is `hold`), and credits an operator blocked; never paid out or settled.",
    ).min(0),
    totalReceived: kobo("Everything received, gross of fees.").min(0),
    totalPaidOut: kobo("Every payout the bank made and kept (a reversed one comes back out).").min(0),
    totalFees: kobo("Every fee taken, on transfers and payouts.").min(0),
    totalVat: kobo("VAT charged on those fees (docs/ledger.md, charges), held for the state.").min(0),
    totalStampDuty: kobo("Stamp duty charged on the business's transfers, held for the state.").min(0),
    currency: z.literal("NGN"),
  })
  .meta({ description: "The business's balances, from its ledger accounts." });

/**
 * A payer's name or bank's name as sent: the customer-name rules, the length in the pattern;
 * `null` counts as not sent.
 */
const payerName = (maxLength: number, fallback: string) =>
  z
    .string()
    .regex(nameOnTheWire(maxLength))
    .nullable()
    .optional()
    .meta({
      description:
        `Default \`${fallback}\`. The customer-name rules: no control character, no bidirectional control, ` +
        `valid Unicode; white space at the ends is trimmed, then 1 to ${maxLength} characters (Unicode code ` +
        "points, counted after NFC normalisation), at least one of them visible. The pattern states all of " +
        "it but the visible character, the length as sent (before NFC).",
    });
/** Body of POST /sandbox/transfers, as sent. */
export const sandboxTransferRequestSchema = z
  .looseObject({
    accountNumber: accountNumber.meta({
      description:
        "One of the calling business's account numbers (another business's, or an unknown one, is 404).",
    }),
    amount: z
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .meta({
        description:
          "Integer kobo. Above MAX_TRANSFER_KOBO (default " +
          `${DEFAULT_MAX_TRANSFER_KOBO}) the transfer is refused (422 \`AMOUNT_ABOVE_LIMIT\`).`,
        examples: [150000],
      }),
    payerName: payerName(MAX_PAYER_NAME_LENGTH, SANDBOX_PAYER.name),
    payerAccountNumber: z
      .string()
      .regex(/^\d{10}$/)
      .nullable()
      .optional()
      .meta({ description: `10 digits; default \`${SANDBOX_PAYER.accountNumber}\`.` }),
    payerBankName: payerName(MAX_BANK_NAME_LENGTH, SANDBOX_PAYER.bankName),
    payerBankCode: z
      .string()
      .regex(/^\d{3,6}$/)
      .nullable()
      .optional()
      .meta({
        description:
          "The payer's bank's CBN code (3 to 6 digits; default none). A refund of the payment goes to " +
          "`payerAccountNumber` at this bank: use a sandbox destination account to try one.",
        examples: ["058"],
      }),
    narration: z
      .string()
      .regex(displayTextOnTheWire())
      .nullable()
      .optional()
      .meta({
        description:
          "No control or bidirectional control characters (400). NFC-normalised and trimmed, then cut to " +
          `${MAX_NARRATION_LENGTH} characters (Unicode code points) at a character boundary, never refused for ` +
          "its length, as a bank's narration is; default `Sandbox transfer`.",
      }),
  })
  .meta({
    description: "A transfer the embedded Virtual Bank makes into one of your accounts.",
    examples: [{ accountNumber: "0184421779", amount: 150000, payerName: "Chinedu Okafor" }],
  });

/** Query parameters of GET /transactions (page and limit as for the account list). */
export const transactionQuerySchema = z.object({
  accountNumber: accountNumber.optional().meta({
    description:
      "Only this account's transactions: one of its numbers, current or retired (payments into an earlier " +
      "number are the account's too). Another business's number is 404.",
  }),
  sessionId: z
    .string()
    .regex(SESSION_ID)
    .optional()
    .meta({
      description:
        "The bank's session id of a payment, as a customer quotes it from their bank app (a requery): " +
        "the one transaction recorded under it, if it is the calling business's; otherwise an empty page.",
      examples: ["100004261123150312345678901234"],
    }),
  from: z.iso.datetime({ offset: true }).optional().meta({
    description:
      "Only transactions whose `timeField` time is at or after this instant; ISO 8601 with a zone.",
  }),
  to: z.iso.datetime({ offset: true }).optional().meta({
    description:
      "Only transactions whose `timeField` time is at or before this instant; ISO 8601 with a zone.",
  }),
  timeField: z
    .enum(TIME_FIELDS)
    .optional()
    .meta({
      description:
        "Which time `from`/`to` bound: `paidAt` (the default: when the bank debited the payer) or " +
        "`createdAt` (when the service recorded it). A `paidAt` range lists the latest `paidAt` first; " +
        "otherwise the newest recorded comes first.",
    }),
});

/** Query parameters of GET /balance. */
export const balanceQuerySchema = z.object({
  at: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({
      description:
        "The balance as it stood at this instant of recording time (ISO 8601 with a zone): read from the " +
        "balance after each ledger account's last entry at or before it. Absent: now.",
      examples: ["2026-01-31T23:59:59.999Z"],
    }),
});

/** Compiles only while each response schema describes exactly what CollectionService returns. */
export type ResponseSchemasMatchService = [
  Assert<Describes<typeof transactionSchema, Transaction>>,
  Assert<Describes<typeof balanceSchema, Balance>>,
];

/** Body of POST /transactions/requery, as sent. */
export const requeryRequestSchema = z
  .looseObject({
    sessionId: z
      .string()
      .regex(SESSION_ID)
      .max(MAX_SESSION_ID_LENGTH)
      .meta({
        description:
          "The bank's session id of the payment (what the payer's receipt calls the session id or reference; " +
          "a transaction's `sessionId`).",
        examples: ["100004231125093015123456789012"],
      }),
  })
  .meta({ description: "The payment to look for." });
