import { z } from "zod";
import type {
  Bank,
  Payout,
  ResolvedBankAccount,
  SandboxPayoutAccount,
  Settlement,
} from "../core/api-types.js";
import type { Assert, Describes } from "../core/contracts.js";
import { displayTextOnTheWire } from "../core/wire-text.js";
import { chargeLinesSchema } from "../ledger/charges.js";
import { MAX_PAYOUT_NARRATION_LENGTH, PAYOUT_REFERENCE, PAYOUT_STATUSES } from "./validation.js";

// Money out's bodies and answers as zod schemas, for the routes' answers, the OpenAPI document and
// core/api-types.ts, generated from them (the request as sent, held to payouts/validation.ts by
// the tests).

const bankCode = z
  .string()
  .regex(/^\d{3,6}$/)
  .meta({ description: "The bank's CBN code.", examples: ["058"] });

/** One item of GET /banks. */
export const bankSchema = z
  .strictObject({
    code: bankCode,
    name: z.string().meta({ examples: ["Guaranty Trust Bank"] }),
  })
  .meta({ description: "A bank a payout can go to." });

/** `data` of GET /banks/resolve. */
export const resolvedBankAccountSchema = z
  .strictObject({
    bankCode,
    bankName: z.string().meta({ examples: ["Guaranty Trust Bank"] }),
    accountNumber: z
      .string()
      .regex(/^\d{10}$/)
      .meta({ examples: ["1234567896"] }),
    accountName: z.string().meta({
      description: "The name the bank holds for the account: show it before money is sent.",
      examples: ["Adaeze Okonkwo"],
    }),
  })
  .meta({ description: "An account at a bank, with the name its bank gives it (name enquiry)." });

/** What a payout to a sandbox destination account always does. */
export const sandboxOutcomeSchema = z.enum([
  "successful",
  "failed",
  "reversed",
  "unresolvable",
  "unknown_successful",
  "unknown_failed",
]);

/** One item of GET /sandbox/payout-accounts. */
export const sandboxPayoutAccountSchema = z
  .strictObject({
    bankCode,
    bankName: z.string().meta({ examples: ["Guaranty Trust Bank"] }),
    accountNumber: z.string().regex(/^\d{10}$/),
    accountName: z.string().nullable().meta({
      description: "The name its name enquiry answers; null for the account that does not resolve.",
    }),
    outcome: sandboxOutcomeSchema.meta({
      description:
        'What a payout to it does: `successful`; `failed` ("account dormant"); `reversed` (successful, ' +
        "then sent back); `unresolvable` (name enquiry answers 422 `ACCOUNT_NOT_RESOLVED`); " +
        "`unknown_successful` and `unknown_failed` (the bank first answers a NIP timeout, code 97, and " +
        "status queries answer 01 until it settles as `successful`, or as `failed` with code 25: the " +
        "payout stays `pending` meanwhile).",
    }),
  })
  .meta({ description: "A sandbox destination account, with the outcome a payout to it always has." });

const kobo = (description: string) =>
  z.int().meta({ description: `Integer kobo (NGN 1 = 100 kobo). ${description}`, examples: [2500000] });
const accountNumber = z
  .string()
  .regex(/^\d{10}$/)
  .meta({ examples: ["1234567896"] });
const instant = (description: string) =>
  z.iso
    .datetime()
    .meta({ description: `${description} (UTC, milliseconds).`, examples: ["2026-11-26T09:30:00.000Z"] });
/**
 * Free text a payout carries, as sent: the display-text rule and the length in its pattern;
 * `null` counts as not sent.
 */
const displayText = (description: string, example: string) =>
  z
    .string()
    .regex(displayTextOnTheWire(MAX_PAYOUT_NARRATION_LENGTH))
    .nullable()
    .optional()
    .meta({
      description:
        `${description} The display-text rule: no control character (a line break included) and no ` +
        "bidirectional control, valid Unicode; white space at the ends is trimmed, then at most " +
        `${MAX_PAYOUT_NARRATION_LENGTH} characters (Unicode code points, counted after NFC normalisation), ` +
        "may be empty. The pattern states all of it, the length as sent (before NFC).",
      examples: [example],
    });
/** Where a payout stands: pending until the bank says; a successful one may come back (reversed). */
export const payoutStatusSchema = z.enum(PAYOUT_STATUSES as ["pending", "successful", "failed", "reversed"]);

/** How a business settles: by hand, once a day at a time in Africa/Lagos, or each credit as it arrives. */
export const settlementScheduleSchema = z.enum(["manual", "daily", "instant"]);

/** Body of POST /payouts, as sent. */
export const payoutRequestSchema = z
  .looseObject({
    amount: z
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .meta({
        description:
          "Integer kobo to send (NGN 1 = 100 kobo). The fee is taken from the available balance besides it; " +
          "above the business's limits is 422 `PAYOUT_LIMIT_EXCEEDED`.",
        examples: [2500000],
      }),
    bankCode: bankCode.meta({ description: "The destination bank's code, from GET /banks." }),
    accountNumber: accountNumber.meta({ description: "The destination account's 10-digit number." }),
    narration: displayText("What the receiver's bank shows (default `Payout`).", "Invoice 1042"),
    reference: z
      .string()
      .regex(PAYOUT_REFERENCE)
      .optional()
      .meta({
        description:
          "Your own reference, unique within your business (the payout's id when none is given). The same " +
          "reference with the same details answers the payout already made; with other details, 409 " +
          "`DUPLICATE_REFERENCE`.",
        examples: ["inv-1042-refund"],
      }),
  })
  .meta({ description: "A payout to make: name enquiry, fee and hold happen before the bank is asked." });

/** Body of POST /transactions/{id}/refund, as sent (it may be empty: the whole payment). */
export const refundRequestSchema = z
  .looseObject({
    amount: z
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({
        description: "Integer kobo to refund; default what is left of the payment after earlier refunds.",
        examples: [50000],
      }),
    reason: displayText(
      "Why: the refund's narration, on the payer's statement (default `Refund`).",
      "Order 1042 cancelled",
    ),
  })
  .meta({ description: "A refund of a payment to its payer." });

/** A transfer out's NIP session id, as the bank gave it. */
const nipSessionId = z
  .string()
  .regex(/^\d{30}$/)
  .nullable()
  .meta({
    description:
      "The NIBSS Instant Payment (NIP) session id the bank gave the transfer: 30 digits, what any " +
      "bank traces it by. `null` until the bank has answered the transfer.",
    examples: ["999999261207221509482713650912"],
  });

/** One payout. */
export const payoutSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^po_[0-9a-f]{32}$/)
      .meta({ examples: ["po_3c1e9b1a5f0c2a4e8a8e4c559a570d2f"] }),
    amount: kobo("What the receiver gets.").min(1),
    fee: kobo("The payout fee, taken with the amount; given back if the payout fails.").min(0),
    charges: chargeLinesSchema.meta({
      description:
        "VAT on the fee and the stamp duty (NGN 10,000 and more), held with the fee: given back if the payout fails, kept if it is reversed. `[]` when none.",
    }),
    currency: z.literal("NGN"),
    bankCode,
    bankName: z.string().meta({ examples: ["Guaranty Trust Bank"] }),
    accountNumber,
    accountName: z.string().meta({
      description: "The name the bank's name enquiry gave when the payout was made.",
      examples: ["Adaeze Okonkwo"],
    }),
    narration: z.string(),
    reference: z.string().meta({ description: "The business's reference (the id when it gave none)." }),
    status: payoutStatusSchema.meta({
      description:
        "`pending` until the bank finishes; then `successful` (the hold posted) or `failed` (the hold " +
        "voided: amount and fee back to available). A successful payout the receiving bank sends back " +
        "becomes `reversed` (the amount back to available; the fee is kept).",
    }),
    failureReason: z.string().nullable().meta({ description: "The bank's reason when failed or reversed." }),
    sessionId: nipSessionId,
    refundOf: z
      .string()
      .nullable()
      .meta({ description: "The inbound transaction this payout refunds (a refund); null otherwise." }),
    createdAt: instant("When it was made: `from` and `to` filter on this"),
    updatedAt: instant("When its status last changed"),
  })
  .meta({ description: "Money sent from the business's available balance to an account at a bank." });

/** Query parameters of GET /payouts, besides page and limit. */
export const payoutQuerySchema = z.object({
  status: payoutStatusSchema.optional().meta({ description: "Only payouts in this status." }),
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: "Only payouts made at or after this instant; ISO 8601 with a zone." }),
  to: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: "Only payouts made at or before this instant; ISO 8601 with a zone." }),
  sessionId: z
    .string()
    .regex(/^\d{30}$/)
    .optional()
    .meta({ description: "Only the payout whose transfer has this NIP session id (30 digits)." }),
});

/** A settlement, as GET /settlements/{id} answers it. */
export const settlementSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^stl_[0-9a-f]{32}$/)
      .meta({ examples: ["stl_7d0c2e9b4a1f4c3e9b8a6d5c4b3a2f10"] }),
    amount: kobo("Paid to the settlement account.").min(1),
    fee: kobo("The payout fee, taken with the amount; given back if the settlement fails.").min(0),
    charges: chargeLinesSchema,
    currency: z.literal("NGN"),
    payoutId: z
      .string()
      .regex(/^po_[0-9a-f]{32}$/)
      .meta({ description: "The payout that carries it; its reference is the settlement's id." }),
    status: payoutStatusSchema.meta({ description: "Its payout's status." }),
    failureReason: z.string().nullable(),
    sessionId: nipSessionId,
    trigger: settlementScheduleSchema.meta({
      description: "`manual` (asked for), or the business's schedule: `daily` or `instant`.",
    }),
    bankCode,
    bankName: z.string(),
    accountNumber,
    accountName: z.string().meta({ description: "The settlement account's name, as its bank gave it." }),
    transactionCount: z
      .int()
      .min(0)
      .meta({
        description:
          "The business's transactions recorded since its last settlement that did not fail: GET " +
          "/settlements/{id}/transactions lists them.",
      }),
    from: instant("When the first of them was recorded").nullable(),
    to: instant("When the last of them was recorded").nullable(),
    createdAt: instant("When it was made: `from` and `to` of the list filter on this"),
    updatedAt: instant("When its status last changed"),
  })
  .meta({
    description: "The available balance, less the reserve and the fee, paid to the business's own account.",
  });

/** A business's own bank account that settlements go to (the console's and the CLI's, not the API's). */
export const settlementAccountSchema = resolvedBankAccountSchema
  .extend({
    setAt: instant("When it was set"),
    usableFrom: instant("The first instant a settlement may go to it (the cool-off after a change)"),
  })
  .meta({ description: "A business's own bank account that settlements go to." });

/** A business's settlement terms, as the console and the CLI show them. */
export const settlementTermsSchema = z
  .strictObject({
    account: settlementAccountSchema.nullable().meta({ description: "`null`: none yet." }),
    schedule: settlementScheduleSchema,
    dailyAt: z
      .string()
      .nullable()
      .meta({ description: "`HH:MM` in Africa/Lagos for a daily schedule; null otherwise." }),
    reserve: kobo("Kept back in the available balance by each settlement.").min(0),
  })
  .meta({ description: "A business's settlement account, schedule and reserve." });

export type BankSchemasMatchService = [
  Assert<Describes<typeof settlementSchema, Settlement>>,
  Assert<Describes<typeof payoutSchema, Payout>>,
  Assert<Describes<typeof sandboxPayoutAccountSchema, SandboxPayoutAccount>>,
  Assert<Describes<typeof bankSchema, Bank>>,
  Assert<Describes<typeof resolvedBankAccountSchema, ResolvedBankAccount>>,
];
