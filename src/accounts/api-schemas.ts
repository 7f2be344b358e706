import { z } from "zod";
import {
  type AccountSummary,
  BANK_NAME,
  type Pagination,
  type PermanentAccount,
  type TemporaryAccount,
} from "./account-service.js";
import {
  BVN_FIELDS,
  DEFAULT_DURATION_MINUTES,
  DEFAULT_LIMIT,
  DEFAULT_PAGE,
  durationSchema,
  emailSchema,
  identitySchema,
  MAX_DURATION_MINUTES,
  MAX_LIMIT,
  MIN_DURATION_MINUTES,
  NIN_FIELDS,
  nameSchema,
} from "./validation.js";

// The public contract of the account endpoints as zod schemas, for the OpenAPI document. Requests
// reuse the field schemas the server validates with; responses describe exactly what
// AccountService returns (checked against its interfaces at the end of this file). They are
// meant to be converted with `io: "output"`: a request field's rules apply to its value after
// normalisation (a name is trimmed before its length is checked), which is what the server does.

const IDENTITY_FIELDS = [...BVN_FIELDS, ...NIN_FIELDS];

const IDENTITY_RULE =
  `One of ${IDENTITY_FIELDS.map((field) => `\`${field}\``).join(", ")} is required. The first one sent, ` +
  "in that order, is used and the others are ignored entirely: a BVN always wins over a NIN. A field " +
  "set to `null` counts as not sent; fields not listed here are ignored. Validation stops at the first " +
  "problem, in the order name, email, identity; the 400 message names the field (`name is required`, `bvn must be a string of exactly 11 digits`).";

const requestFields = {
  name: nameSchema.meta({
    description:
      "Customer full name. NFC-normalised and trimmed, then 1 to 200 characters with no control characters.",
    examples: ["Ada Obi"],
  }),
  email: emailSchema.meta({
    description: "Customer email. Trimmed and lower-cased, then a valid address of at most 254 characters.",
    examples: ["ada@example.com"],
  }),
  bvn: identitySchema("bvn").optional().meta({
    description: "Bank Verification Number: 11 digits. Sent to the bank as identity type `personal`.",
  }),
  BVN: identitySchema("BVN").optional().meta({ description: "Alias of `bvn`, used when `bvn` is not sent." }),
  nin: identitySchema("nin").optional().meta({
    description:
      "National Identification Number: 11 digits. Used only when no BVN is sent; sent to the bank as identity type `personal_nin`.",
  }),
  NIN: identitySchema("NIN").optional().meta({ description: "Alias of `nin`, used when `nin` is not sent." }),
  ninNumber: identitySchema("ninNumber")
    .optional()
    .meta({ description: "Alias of `nin`, used when neither `nin` nor `NIN` is sent." }),
};

// zod cannot say "at least one of these keys"; the rule the server applies is identity() in
// validation.ts. Unknown fields are ignored, hence a loose object.
const identityRequired = IDENTITY_FIELDS.map((field) => ({ required: [field] }));

/** Body of POST /account/generate. */
export const permanentRequestSchema = z.looseObject(requestFields).meta({
  description: `A customer's details. ${IDENTITY_RULE}`,
  anyOf: identityRequired,
  examples: [{ name: "Ada Obi", email: "ada@example.com", bvn: "22345678901" }],
});

/** Body of POST /account/generate/temporary. */
export const temporaryRequestSchema = z
  .looseObject({
    ...requestFields,
    duration: durationSchema.optional().meta({
      description:
        `Minutes until expiry: a whole JSON number from ${MIN_DURATION_MINUTES} to ${MAX_DURATION_MINUTES} ` +
        `(7 days). Absent or \`null\` means ${DEFAULT_DURATION_MINUTES}; \`"30"\` (a string) is refused. ` +
        "Checked after the identity.",
      default: DEFAULT_DURATION_MINUTES,
    }),
  })
  .meta({
    description: `A customer's details and the account's lifetime. ${IDENTITY_RULE}`,
    anyOf: identityRequired,
    examples: [{ name: "Ada Obi", email: "ada@example.com", nin: "12345678901", duration: 30 }],
  });

/**
 * Query parameters of GET /account/list. The server reads them with parseListQuery (decimal
 * digits only, leading zeros allowed); these schemas state the same bounds.
 */
export const listQuerySchema = z.object({
  page: z.int().min(1).optional().meta({ description: "Page number, from 1.", default: DEFAULT_PAGE }),
  limit: z
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .meta({ description: `Accounts per page, from 1 to ${MAX_LIMIT}.`, default: DEFAULT_LIMIT }),
});

const bankName = z.literal(BANK_NAME).meta({ description: "The bank that holds the account." });
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
  })
  .meta({ description: "An account of the calling business, permanent or temporary, expired or not." });

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

/** The schema's values are values of T, and both have the same fields. */
type Describes<S extends z.ZodType, T> =
  z.output<S> extends T
    ? [Exclude<keyof T, keyof z.output<S>> | Exclude<keyof z.output<S>, keyof T>] extends [never]
      ? true
      : false
    : false;

type Assert<T extends true> = T;

/** Compiles only while each response schema describes exactly what AccountService returns. */
export type ResponseSchemasMatchService = [
  Assert<Describes<typeof permanentAccountSchema, PermanentAccount>>,
  Assert<Describes<typeof temporaryAccountSchema, TemporaryAccount>>,
  Assert<Describes<typeof accountSummarySchema, AccountSummary>>,
  Assert<Describes<typeof paginationSchema, Pagination>>,
];
