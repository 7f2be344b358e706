import { z } from "zod";
import { ACCOUNT_STATUSES, AMOUNT_POLICIES, PAYMENT_STATUSES } from "../core/api-types.js";
import type { Assert, Describes } from "../core/contracts.js";
import {
  DEFAULT_LIMIT,
  DEFAULT_PAGE,
  MAX_EMAIL_LENGTH,
  MAX_EMAIL_LOCAL_PART_LENGTH,
  MAX_LIMIT,
  type Pagination,
} from "../core/validation.js";
import { BIDI_CONTROL_CHARACTERS } from "../display-name.js";
import { DEFAULT_MAX_TRANSFER_KOBO } from "../ledger/kobo.js";
import { VIRTUAL_BANK_NAME } from "../providers/virtual-bank.js";
import type { AccountDetail } from "./account-lifecycle.js";
import type { AccountSummary, PermanentAccount, TemporaryAccount } from "./account-views.js";
import {
  BVN_FIELDS,
  DEFAULT_DURATION_MINUTES,
  identitySchema,
  MAX_DURATION_MINUTES,
  MAX_NAME_LENGTH,
  MIN_DURATION_MINUTES,
  NIN_FIELDS,
} from "./validation.js";

// The public contract of the account endpoints as zod schemas, for the OpenAPI document.
// Requests are described as they travel, before the server normalises them: a validating proxy
// or a generated client judges the bytes a client sends, so a pattern here accepts `"  Ada "`
// when the server does (it trims first). validation.ts holds the rules the server applies;
// test/openapi-requests.test.ts checks that these schemas accept exactly what it accepts.
// Responses describe exactly what AccountService returns (checked against its interfaces at the
// end of this file). Everything is converted with `io: "output"`.

const IDENTITY_FIELDS = [...BVN_FIELDS, ...NIN_FIELDS];

// Regular-expression sources, ECMA-262 as JSON Schema's `pattern` is, written so that they mean
// the same with the `u` flag (Ajv, so Prism) and without it. test/openapi-requests.test.ts tries
// every UTF-16 code unit against the server's own rules.
/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), all of it. */
const TRIMMED = "\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
/** The part of TRIMMED that is not a control character, so may stand inside a name. */
const SPACES = " \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\ufeff";
/** CONTROL_CHARACTERS without `\p{Cc}`, which needs the `u` flag: C0, C1, U+2028 and U+2029. */
const CONTROLS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";
/** What is inside BIDI_CONTROL_CHARACTERS, a plain `[...]` of `\uXXXX` characters and ranges. */
const BIDI = BIDI_CONTROL_CHARACTERS.source.slice(1, -1);
/** `\\u061c\\u202a-\\u202e` as `U+061C, U+202A-U+202E`. */
const codePoints = (characterClass: string) =>
  Array.from(characterClass.matchAll(/\\u(\w{4})(?:-\\u(\w{4}))?/g), ([, from = "", to]) =>
    [from, to]
      .filter((point) => point !== undefined)
      .map((point) => `U+${point.toUpperCase()}`)
      .join("-"),
  ).join(", ");
/** One character of a name that is not white space; a surrogate only in a pair. */
const NAME_CHARACTER = `(?:[\\ud800-\\udbff][\\udc00-\\udfff]|[^${TRIMMED}${CONTROLS}${BIDI}\\ud800-\\udfff])`;

/**
 * A name as sent: white space at either end, then at least one character, with no control or
 * bidi-control character nor unpaired surrogate inside. NFC normalisation maps no character into
 * or out of these sets, so judging the text before it is judging it after. Not stated: the
 * length, and that not every character may be invisible.
 */
export const NAME_ON_THE_WIRE = new RegExp(
  `^[${TRIMMED}]*${NAME_CHARACTER}(?:[${SPACES}]*${NAME_CHARACTER})*[${TRIMMED}]*$`,
);

// zod's email pattern (z.regexes.email), case-insensitive already, with the Kelvin sign beside
// the ASCII letters: it is the one other character that lower-cases to one of them (K to k).
const LETTERS = "A-Za-z\\u212a";
const EMAIL = `(?:[${LETTERS}0-9_'+\\-]+\\.)*[${LETTERS}0-9_'+\\-]*[${LETTERS}0-9_+\\-]@(?:[${LETTERS}0-9][${LETTERS}0-9\\-]*\\.)+[${LETTERS}]{2,}`;

/** An email as sent: white space at either end, around an address of at most 254 characters. */
export const EMAIL_ON_THE_WIRE = new RegExp(
  `^[${TRIMMED}]*(?![^${TRIMMED}]{${MAX_EMAIL_LENGTH + 1}})(?=[^@]{1,${MAX_EMAIL_LOCAL_PART_LENGTH}}@)` +
    `${EMAIL}[${TRIMMED}]*$`,
);

// The server's own rule for an identity number (its pattern, `^\d{11}$`, is the whole of it).
const digits = identitySchema("bvn");

const IDENTITY_RULE =
  `One of ${IDENTITY_FIELDS.map((field) => `\`${field}\``).join(", ")} is required. The first one sent, ` +
  "in that order, is used and the others are ignored entirely, whatever their value: a BVN always wins " +
  "over a NIN. A field set to `null` counts as not sent; fields not listed here are ignored. Validation " +
  "stops at the first problem, in the order name, email, identity; the 400 message names the field " +
  "(`name is required`, `bvn must be a string of exactly 11 digits`).";

const ignored = "Ignored entirely, whatever its value, when a field before it in that order is sent.";

const requestFields = {
  name: z
    .string()
    .regex(NAME_ON_THE_WIRE)
    .meta({
      description:
        "Customer full name. The server refuses unpaired surrogates, NFC-normalises the name and trims " +
        "white space from both ends (what JavaScript's `String.prototype.trim` removes), then requires 1 " +
        `to ${MAX_NAME_LENGTH} characters (UTF-16 code units), no control character (C0, C1, U+2028, ` +
        `U+2029), no bidirectional control (${codePoints(BIDI)}), and at least one visible character ` +
        "(not only white space, U+2800 and Unicode's Default_Ignorable_Code_Point characters: zero-width " +
        "spaces and joiners, fillers, variation selectors...). The pattern states all of it but the " +
        "length and the visible character, which the server checks (400 `VALIDATION_FAILED`). The " +
        "stored and answered name is the normalised one.",
      examples: ["Ada Obi"],
    }),
  email: z
    .string()
    .regex(EMAIL_ON_THE_WIRE)
    .meta({
      description:
        "Customer email. The server trims white space from both ends and lower-cases it, then requires " +
        `an address of at most ${MAX_EMAIL_LENGTH} characters: at most ${MAX_EMAIL_LOCAL_PART_LENGTH} of ` +
        "ASCII letters, digits and `_ ' + - .` before the `@`, then a domain of ASCII letters, digits and " +
        "hyphens with a top-level part of two letters or more (U+212A, the Kelvin sign, counts as k). " +
        "The pattern states all of it. The stored and answered email is the lower-cased one.",
      examples: ["ada@example.com"],
    }),
  bvn: digits.nullable().optional().meta({
    description:
      "Bank Verification Number: a string of exactly 11 digits. Sent to the bank as identity type `personal`.",
  }),
  BVN: z
    .unknown()
    .optional()
    .meta({
      description: `Alias of \`bvn\`, used when \`bvn\` is not sent: then 11 digits, as \`bvn\`. ${ignored}`,
    }),
  nin: z
    .unknown()
    .optional()
    .meta({
      description:
        "National Identification Number: 11 digits, as `bvn`. Used only when no BVN is sent; sent to the " +
        `bank as identity type \`personal_nin\`. ${ignored}`,
    }),
  NIN: z
    .unknown()
    .optional()
    .meta({
      description: `Alias of \`nin\`, used when no BVN and no \`nin\` is sent. ${ignored}`,
    }),
  ninNumber: z
    .unknown()
    .optional()
    .meta({
      description: `Alias of \`nin\`, used when no BVN, \`nin\` or \`NIN\` is sent. ${ignored}`,
    }),
};

// zod cannot say "the first of these that is not null must be 11 digits", so it is written in
// JSON Schema: one branch per field, in which the fields before it are absent or null. It sits
// in an allOf because openapi-typescript reads an anyOf beside `properties` as a union with them,
// where it reads an allOf as "and". "Null" is written as "not anything but null": openapi-fetch
// turns a property typed `null` into `never` (openapi-ts/openapi-typescript#2717), which would
// refuse `{"bvn": null, "nin": "..."}` at compile time.
const { $schema: _, ...DIGITS } = z.toJSONSchema(digits, { target: "draft-2020-12" });
const NOT_SENT = {
  description: "Not sent: absent or `null`.",
  not: { not: { type: "null" } },
};
const identityRequired = [
  {
    anyOf: IDENTITY_FIELDS.map((field, i) => ({
      title: `Identity in \`${field}\``,
      type: "object",
      properties: {
        ...Object.fromEntries(IDENTITY_FIELDS.slice(0, i).map((before) => [before, NOT_SENT])),
        [field]: DIGITS,
      },
      required: [field],
    })),
  },
];

/** Body of POST /account/generate, as sent. */
export const permanentRequestSchema = z.looseObject(requestFields).meta({
  description: `A customer's details. ${IDENTITY_RULE}`,
  allOf: identityRequired,
  examples: [{ name: "Ada Obi", email: "ada@example.com", bvn: "22345678901" }],
});

/** Body of POST /account/generate/temporary, as sent. */
export const temporaryRequestSchema = z
  .looseObject({
    ...requestFields,
    duration: z
      .int()
      .min(MIN_DURATION_MINUTES)
      .max(MAX_DURATION_MINUTES)
      .nullable()
      .optional()
      .meta({
        description:
          `Minutes until expiry: a whole JSON number from ${MIN_DURATION_MINUTES} to ${MAX_DURATION_MINUTES} ` +
          `(${MAX_DURATION_MINUTES / (24 * 60)} days). Absent or \`null\` means ${DEFAULT_DURATION_MINUTES}; \`"30"\` (a string) is refused. ` +
          "Checked after the identity.",
      }),
    expectedAmount: z
      .int()
      .min(1)
      .max(DEFAULT_MAX_TRANSFER_KOBO)
      .nullable()
      .optional()
      .meta({
        description:
          "Integer kobo (NGN 1 = 100 kobo). When sent, the account takes transfers as `amountPolicy` " +
          "says; a transfer the policy refuses is refused at the bank. Absent or `null`: any number of " +
          "transfers of any amount until the account expires. At most the server's MAX_TRANSFER_KOBO " +
          "(default 1000000000, NGN 10,000,000). Checked after `duration`.",
        examples: [150000],
      }),
    amountPolicy: z
      .enum(AMOUNT_POLICIES)
      .nullable()
      .optional()
      .meta({
        description:
          "How `expectedAmount` is applied (only with one; absent or `null` means `exact`): `exact`, one " +
          "transfer of exactly that amount; `atLeast`, one transfer of at least that amount (an " +
          "overpayment is credited in full); `accumulate`, any transfers until their total reaches the " +
          "amount (the one that reaches it is taken in full), then no more. Checked after `expectedAmount`.",
        examples: ["accumulate"],
      }),
  })
  .meta({
    description: `A customer's details and the account's lifetime. ${IDENTITY_RULE}`,
    allOf: identityRequired,
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

const amountPolicy = z
  .enum(AMOUNT_POLICIES)
  .nullable()
  .meta({
    description: "How `expectedAmount` is applied (`exact`, `atLeast`, `accumulate`); `null` without one.",
    examples: ["exact", null],
  });

const kobo = (description: string) =>
  z
    .int()
    .min(0)
    .meta({ description, examples: [150000] });

const accountStatusSchema = z.enum(ACCOUNT_STATUSES).meta({
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

/** `data` of GET /account/{accountNumber}. */
export const accountDetailSchema = accountSummarySchema
  .extend({
    expectedAmount,
    amountPolicy,
    totalReceived: kobo("Integer kobo received into the account so far, gross of fees."),
    amountPaid: kobo("Integer kobo paid so far, gross of fees (the same as `totalReceived`)."),
    amountOutstanding: kobo(
      "Integer kobo still to pay: 0 once paid or overpaid; `null` without `expectedAmount`.",
    ).nullable(),
    paymentStatus: z
      .enum(PAYMENT_STATUSES)
      .nullable()
      .meta({
        description:
          "`pending` (nothing paid), `partially_paid`, `paid` (exactly the expected amount) or `overpaid`; " +
          "`null` without `expectedAmount`.",
        examples: ["partially_paid", null],
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
