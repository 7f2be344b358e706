import { z } from "zod";
import type { Assert, Describes } from "../core/contracts.js";
import { MAX_LIMIT, type Pagination } from "../core/validation.js";
import { VIRTUAL_BANK_NAME } from "../providers/virtual-bank.js";
import type { AccountDetail } from "./account-lifecycle.js";
import type { AccountSummary, PermanentAccount, TemporaryAccount } from "./account-views.js";
import {
  allowedPayersSchema,
  DEFAULT_DURATION_MINUTES,
  MAX_DURATION_MINUTES,
  MIN_DURATION_MINUTES,
} from "./validation.js";

// The account endpoints' answers as zod schemas: what the routes answer with, what the OpenAPI
// document shows and what core/api-types.ts is generated from (scripts/generate-api-types.ts).
// Each describes exactly what AccountService returns (checked at the end of this file).
// Converted with `io: "output"`.

const bankName = z.literal(VIRTUAL_BANK_NAME).meta({ description: "The bank that holds the account." });
const accountNumber = z
  .string()
  .regex(/^\d{10}$/)
  .meta({
    description: "10-digit NUBAN, unique across the service and never reused.",
    examples: ["0184421779"],
  });
const accountName = z
  .string()
  .meta({ description: "`<business name>/<customer name>`.", examples: ["Acme Ltd/Ada Obi"] });
const userName = z.string().meta({ description: "The customer name, normalised.", examples: ["Ada Obi"] });
const customerEmail = z
  .email()
  .meta({ description: "The customer email, lower-cased.", examples: ["ada@example.com"] });
const createdAt = z.iso.datetime().meta({
  description: "When the account was created (UTC, milliseconds).",
  examples: ["2026-01-01T00:00:00.120Z"],
});

const expectedAmount = z
  .int()
  .min(1)
  .nullable()
  .meta({
    description:
      "Integer kobo a temporary account expects, applied as `amountPolicy` says; `null` when it accepts any transfers.",
    examples: [150000, null],
  });

/** How an expected amount is applied: one exact transfer, one of at least it, or any until the total reaches it. */
export const amountPolicyEnum = z.enum(["exact", "atLeast", "accumulate"]);

/** What a credit an account's rules do not take becomes (issue 46, item 6). */
export const onMismatchEnum = z.enum(["decline", "hold"]);

/** How far an account that expects an amount has been paid. */
export const paymentStatusEnum = z.enum(["pending", "partially_paid", "paid", "overpaid"]);

const amountPolicy = amountPolicyEnum.nullable().meta({
  description: "How `expectedAmount` is applied (`exact`, `atLeast`, `accumulate`); `null` without one.",
  examples: ["exact", null],
});

const kobo = (description: string) =>
  z
    .int()
    .min(0)
    .meta({ description, examples: [150000] });

/** An account's state at an instant, computed when read (no background job flips it). */
export const accountStatusSchema = z.enum(["active", "expired", "deactivated"]).meta({
  description:
    "Computed when read: `deactivated` (the business deactivated it), `expired` (a temporary account at " +
    "or after `expiresAt`), otherwise `active`. Only an `active` account accepts transfers.",
});

/** `data` of POST /account/generate. */
export const permanentAccountSchema = z
  .strictObject({ bankName, accountNumber, accountName, userName })
  .meta({ description: "The customer's permanent account and the number now valid for it." });

/** `data` of POST /account/generate/temporary. */
export const temporaryAccountSchema = z
  .strictObject({
    accountNumber,
    accountName,
    userName,
    email: customerEmail,
    bankName,
    isTemporary: z.literal(true),
    createdAt,
    expiresAt: z.iso.datetime().meta({
      description: "`createdAt` plus `expiresInMinutes` minutes.",
      examples: ["2026-01-01T00:30:00.120Z"],
    }),
    expiresInMinutes: z
      .int()
      .min(MIN_DURATION_MINUTES)
      .max(MAX_DURATION_MINUTES)
      .meta({ description: `The duration that applies (${DEFAULT_DURATION_MINUTES} if none was sent).` }),
    expectedAmount,
    amountPolicy,
  })
  .meta({ description: "A new temporary account." });

/** One item of GET /account/list. */
export const accountSummarySchema = z
  .strictObject({
    bankName,
    accountNumber,
    email: customerEmail,
    accountName,
    createdAt,
    isTemporary: z.boolean(),
    expiresAt: z.iso
      .datetime()
      .nullable()
      .meta({
        description: "Expiry of a temporary account (past or future); `null` for a permanent one.",
        examples: ["2026-01-01T00:30:00.120Z", null],
      }),
    status: accountStatusSchema,
  })
  .meta({ description: "An account of the calling business, permanent or temporary, expired or not." });

/** What an account has been paid, against what it expects. */
export const paymentProgressSchema = z.strictObject({
  amountPaid: kobo("Integer kobo paid so far, gross of fees (the same as `totalReceived`)."),
  amountOutstanding: kobo(
    "Integer kobo still to pay: 0 once paid or overpaid; `null` without `expectedAmount`.",
  ).nullable(),
  paymentStatus: paymentStatusEnum.nullable().meta({
    description:
      "`pending` (nothing paid), `partially_paid`, `paid` (exactly the expected amount) or `overpaid`; " +
      "`null` without `expectedAmount`.",
    examples: ["partially_paid", null],
  }),
});

/** `data` of GET /account/{accountNumber}. */
export const accountDetailSchema = accountSummarySchema
  .extend({
    expectedAmount,
    amountPolicy,
    allowedPayers: allowedPayersSchema.nullable().meta({
      description:
        "Who may pay in: accounts (`{accountNumber, bankCode}`) and names (`{name}`); `null`: anyone.",
    }),
    onMismatch: onMismatchEnum.meta({
      description: "What a credit the account's rules do not take becomes: `decline` or `hold`.",
    }),
    totalReceived: kobo("Integer kobo received into the account so far, gross of fees."),
    ...paymentProgressSchema.shape,
    tier: z
      .int()
      .min(1)
      .max(3)
      .meta({
        description:
          "The account's KYC tier: 1 with a BVN or a NIN, 2 with both, or the business's KYC level when the operator set a higher one. Each tier's largest single credit, " +
          'most received in a day and in total are the operator\'s settings (docs/api.md, "Identity tiers").',
        examples: [1],
      }),
  })
  .meta({ description: "An account of the calling business, with what it has received." });

/** `pagination` of GET /account/list. */
export const paginationSchema = z
  .strictObject({
    page: z
      .int()
      .min(1)
      .meta({ description: "The page asked for.", examples: [1] }),
    limit: z
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .meta({ description: "The page size asked for.", examples: [10] }),
    total: z
      .int()
      .min(0)
      .meta({ description: "The business's number of accounts, all kinds.", examples: [42] }),
    pages: z
      .int()
      .min(0)
      .meta({ description: "`ceil(total / limit)`; 0 when there are no accounts.", examples: [5] }),
  })
  .meta({ description: "Where this page sits in the whole list." });

/** Compiles only while each response schema describes exactly what AccountService returns. */
export type ResponseSchemasMatchService = [
  Assert<Describes<typeof permanentAccountSchema, PermanentAccount>>,
  Assert<Describes<typeof temporaryAccountSchema, TemporaryAccount>>,
  Assert<Describes<typeof accountSummarySchema, AccountSummary>>,
  Assert<Describes<typeof accountDetailSchema, AccountDetail>>,
  Assert<Describes<typeof paginationSchema, Pagination>>,
];
