import { z } from "zod";
import {
  DEFAULT_LIMIT,
  DEFAULT_PAGE,
  MAX_EMAIL_LENGTH,
  MAX_EMAIL_LOCAL_PART_LENGTH,
  MAX_LIMIT,
} from "../core/validation.js";
import { DEFAULT_MAX_TRANSFER_KOBO } from "../ledger/kobo.js";
import { amountPolicyEnum } from "./answer-schemas.js";
import {
  allowedPayersSchema,
  BVN_FIELDS,
  DEFAULT_DURATION_MINUTES,
  identitySchema,
  MAX_ALLOWED_PAYERS,
  MAX_DURATION_MINUTES,
  MAX_NAME_LENGTH,
  MIN_DURATION_MINUTES,
  NIN_FIELDS,
  onMismatchSchema,
} from "./validation.js";

import { BIDI, codePoints, EMAIL_ON_THE_WIRE, NAME_ON_THE_WIRE } from "./wire-patterns.js";

// The public contract of the account endpoints as zod schemas, for the OpenAPI document.
// Requests are described as they travel, before the server normalises them: a validating proxy
// or a generated client judges the bytes a client sends, so a pattern here accepts `"  Ada "`
// when the server does (it trims first). validation.ts holds the rules the server applies;
// test/openapi-requests.test.ts checks that these schemas accept exactly what it accepts.
// The answers' schemas are in answer-schemas.ts. Everything is converted with `io: "output"`.

const IDENTITY_FIELDS = [...BVN_FIELDS, ...NIN_FIELDS];

// The server's own rule for an identity number (its pattern, `^\d{11}$`, is the whole of it).
const digits = identitySchema("bvn");

const IDENTITY_RULE =
  `One of ${IDENTITY_FIELDS.map((field) => `\`${field}\``).join(", ")} is required. The first one sent, ` +
  "in that order, is used and the others are ignored entirely, whatever their value: a BVN always wins " +
  "over a NIN (but a NIN of exactly 11 digits, a string, sent beside the BVN is kept too and makes the " +
  "account tier 2). A field set to `null` counts as not sent; fields not listed here are ignored. Validation " +
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
        `to ${MAX_NAME_LENGTH} characters (Unicode code points, after normalisation), no control character (C0, C1, U+2028, ` +
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
  // Issue 46, item 6: who may pay in.
  allowedPayers: allowedPayersSchema
    .nullable()
    .optional()
    .meta({
      description:
        `Who may pay into the account: 1 to ${MAX_ALLOWED_PAYERS} payers, each an account ` +
        "(`{accountNumber, bankCode}`: the payer's 10-digit account and its bank's CBN code, as the " +
        "bank's notification gives them) or a name (`{name}`: taken when the payer's name shares two " +
        "words with it, the words every company name carries left out). Absent or `null`: anyone. " +
        "A credit from anyone else is what `onMismatch` says. Checked after the other fields.",
      examples: [[{ accountNumber: "0123456789", bankCode: "058" }, { name: "Ada Obi" }]],
    }),
  onMismatch: onMismatchSchema
    .nullable()
    .optional()
    .meta({
      description:
        "What a credit from a payer not in `allowedPayers`, or one the `expectedAmount`'s policy refuses, " +
        "becomes: `decline` (the default: refused, the bank reverses it, `payment.declined`) or `hold` " +
        "(credited to the held balance, `payment.held`, until the business accepts or returns it: " +
        "POST /transactions/{id}/accept or /return; returned by itself after HELD_CREDIT_DAYS).",
      examples: ["hold"],
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
    amountPolicy: amountPolicyEnum
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
    // `amountPolicy` only with an `expectedAmount` (400 "amountPolicy needs expectedAmount").
    allOf: [
      ...identityRequired,
      {
        if: { properties: { amountPolicy: { type: "string" } }, required: ["amountPolicy"] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable.
        then: { properties: { expectedAmount: { type: "integer" } }, required: ["expectedAmount"] },
      },
    ],
    examples: [{ name: "Ada Obi", email: "ada@example.com", nin: "12345678901", duration: 30 }],
  });

/** Body of POST /account/{accountNumber}/identity (issue 46), as sent: the identity fields alone. */
export const identityRequestSchema = z
  .looseObject({
    bvn: requestFields.bvn,
    BVN: requestFields.BVN,
    nin: requestFields.nin,
    NIN: requestFields.NIN,
    ninNumber: requestFields.ninNumber,
  })
  .meta({
    description:
      "The identity the account lacks: a NIN for one opened with a BVN, a BVN for one opened with a NIN. " +
      `${IDENTITY_FIELDS.map((field) => `\`${field}\``).join(", ")}: the first one sent, in that order, is used ` +
      "and the others are ignored entirely; a field set to `null` counts as not sent; fields not listed are ignored.",
    allOf: identityRequired,
    examples: [{ nin: "32345678901" }],
  });

/** Body of PATCH /account/{accountNumber} (issue 46, item 6), as sent: who may pay in, the policy, or both. */
export const accountUpdateRequestSchema = z
  .strictObject({
    allowedPayers: allowedPayersSchema
      .nullable()
      .optional()
      .meta({
        description:
          `Who may pay into the account from the next credit on, replacing the list it has: 1 to ${MAX_ALLOWED_PAYERS} ` +
          "payers, each an account (`{accountNumber, bankCode}`) or a name (`{name}`), as at generate. `null`: " +
          "anyone may pay. Absent: the list stays as it is.",
        examples: [[{ accountNumber: "0123456789", bankCode: "058" }, { name: "Ada Obi" }]],
      }),
    onMismatch: onMismatchSchema.optional().meta({
      description:
        "What a credit from a payer not in `allowedPayers`, or one the `expectedAmount`'s policy refuses, " +
        "becomes from the next credit on: `decline` or `hold`, as at generate (not `null`). Absent: it stays as it is.",
      examples: ["hold"],
    }),
  })
  .meta({
    description:
      "What to change: `allowedPayers`, `onMismatch` or both (at least one); any other field is refused " +
      "(400 `VALIDATION_FAILED`, naming it), so that a misspelt field is not silently left as it was.",
    minProperties: 1,
    examples: [{ allowedPayers: [{ name: "Ada Obi" }], onMismatch: "hold" }, { allowedPayers: null }],
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
