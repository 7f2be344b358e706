import { z } from "zod";
import type { IdentityType } from "../core/account-kinds.js";
import {
  type AllowedPayer,
  AMOUNT_POLICIES,
  type AmountPolicy,
  ON_MISMATCH,
  type OnMismatch,
} from "../core/api-types.js";
import { type Body, check, emailSchema, FirstSent, fields, isSent, parsedBy } from "../core/validation.js";
import { displayNameSchema } from "../display-name.js";
import { validationFailed } from "../errors.js";
import { DEFAULT_MAX_TRANSFER_KOBO, koboSchema } from "../ledger/kobo.js";

// Field rules as zod schemas, so that a machine-readable contract can be generated from the very
// rules the server applies; the order in which fields are checked, the aliases and the
// "required" messages are the functions below.

export const MAX_NAME_LENGTH = 200;
export const MIN_DURATION_MINUTES = 1;
export const MAX_DURATION_MINUTES = 10_080;
export const DEFAULT_DURATION_MINUTES = 40;

export const nameSchema = displayNameSchema("name", MAX_NAME_LENGTH);

/** A BVN or NIN sent as `field`: a string of exactly 11 digits (messages name the field as sent). */
export const identitySchema = (field: string) =>
  z.string({ error: `${field} must be a string of exactly 11 digits` }).regex(/^\d{11}$/, {
    error: `${field} must be a string of exactly 11 digits`,
  });

export const durationSchema = z
  .number({ error: "duration must be a whole number of minutes" })
  .int({ error: "duration must be a whole number of minutes" })
  .min(MIN_DURATION_MINUTES, {
    error: `duration must be between ${MIN_DURATION_MINUTES} and ${MAX_DURATION_MINUTES} minutes`,
  })
  .max(MAX_DURATION_MINUTES, {
    error: `duration must be between ${MIN_DURATION_MINUTES} and ${MAX_DURATION_MINUTES} minutes`,
  });

/** A 10-digit account number sent as `field`. */
export const accountNumberSchema = (field: string) =>
  z.string({ error: `${field} must be a string of exactly 10 digits` }).regex(/^\d{10}$/, {
    error: `${field} must be a string of exactly 10 digits`,
  });

/** Names under which each identity number is accepted, in order of precedence. */
export const BVN_FIELDS = ["bvn", "BVN"] as const;
export const NIN_FIELDS = ["nin", "NIN", "ninNumber"] as const;

export interface Identity {
  type: IdentityType;
  number: string;
}

/** The most payers an account may name (issue 46, item 6). */
export const MAX_ALLOWED_PAYERS = 20;
const PAYERS_RULE = `allowedPayers must be a list of 1 to ${MAX_ALLOWED_PAYERS} payers, each {accountNumber, bankCode} or {name}`;

const PAYER_SHAPE = "allowedPayers: each payer is {accountNumber, bankCode} or {name}, nothing else";
const PAYER_NUMBER = "allowedPayers: an accountNumber must be a string of exactly 10 digits";
const PAYER_BANK = "allowedPayers: a bankCode must be a string of 3 to 6 digits (the bank's CBN code)";
const PAYER_NAME = `allowedPayers: a name must be a string of at most ${MAX_NAME_LENGTH} characters with a letter or a digit`;

/** A payer an account takes credits from: its account (10 digits) at a bank (its CBN code), or a name. */
export const allowedPayerSchema = z.union(
  [
    z.strictObject(
      {
        accountNumber: z.string({ error: PAYER_NUMBER }).regex(/^\d{10}$/, { error: PAYER_NUMBER }),
        bankCode: z.string({ error: PAYER_BANK }).regex(/^\d{3,6}$/, { error: PAYER_BANK }),
      },
      { error: PAYER_SHAPE },
    ),
    z.strictObject(
      {
        name: z
          .string({ error: PAYER_NAME })
          .max(MAX_NAME_LENGTH, { error: PAYER_NAME })
          .regex(/[\p{L}\p{N}]/u, { error: PAYER_NAME }),
      },
      { error: PAYER_SHAPE },
    ),
  ],
  { error: PAYER_SHAPE },
);

/** `allowedPayers`: who may pay in (absent or null: anyone). */
export const allowedPayersSchema = z
  .array(allowedPayerSchema, { error: PAYERS_RULE })
  .min(1, { error: PAYERS_RULE })
  .max(MAX_ALLOWED_PAYERS, { error: PAYERS_RULE });

/** `onMismatch`: what a credit the account's rules do not take becomes. */
export const onMismatchSchema = z.enum(ON_MISMATCH, {
  error: `onMismatch must be one of ${ON_MISMATCH.join(", ")}`,
});

/** The payer rules' fields, optional on both kinds of account, checked after the others. */
const PAYER_FIELDS = { allowedPayers: allowedPayersSchema, onMismatch: onMismatchSchema };

/** Who may pay in and what a mismatch becomes, as read (defaults: anyone, `decline`). */
const payerRules = (read: { allowedPayers?: AllowedPayer[] | null; onMismatch?: OnMismatch | null }) => ({
  allowedPayers: read.allowedPayers ?? null,
  onMismatch: read.onMismatch ?? "decline",
});

export interface PermanentInput {
  name: string;
  email: string;
  identity: Identity;
  /** Who may pay in (issue 46, item 6): null or absent, anyone. */
  allowedPayers?: AllowedPayer[] | null;
  /** What a credit from anyone else, or one its expected amount's policy refuses, becomes (absent: `decline`). */
  onMismatch?: OnMismatch;
  /**
   * A NIN sent beside the BVN that won (issue 46): kept too, for tier 2, when it is 11 digits; one
   * that is not is ignored, as every identity after the first was before. Null: none.
   */
  second?: Identity | null;
}

export interface TemporaryInput extends PermanentInput {
  durationMinutes: number;
  /** Kobo: what the account expects (null: any transfers). */
  expectedAmount: number | null;
  /** How expectedAmount is applied: `exact` unless sent; null without an expected amount. */
  amountPolicy: AmountPolicy | null;
}

export const amountPolicySchema = z.enum(AMOUNT_POLICIES, {
  error: `amountPolicy must be one of ${AMOUNT_POLICIES.join(", ")}`,
});

/** The identity number: bvn (or an alias) wins whenever it is sent, nin and its aliases then ignored entirely. */
const IDENTITY = new FirstSent(
  [...BVN_FIELDS, ...NIN_FIELDS].map((field) => [field, identitySchema(field)] as const),
  "bvn or nin is required",
);
const PERMANENT_FIELDS = { name: nameSchema, email: emailSchema, identity: IDENTITY };
/** The identity as read: which kind of number, by the name it was sent under. */
const identityOf = ({ name, value }: { name: string; value: string }): Identity => ({
  type: (BVN_FIELDS as readonly string[]).includes(name) ? "bvn" : "nin",
  number: value,
});

/** The NIN sent beside a BVN, under the first of its names sent, when it is 11 digits. */
function secondIdentity(body: Body, first: Identity): Identity | null {
  if (first.type !== "bvn") return null;
  const name = NIN_FIELDS.find((field) => isSent(body, field));
  const value = name === undefined ? undefined : body[name];
  return typeof value === "string" && /^\d{11}$/.test(value) ? { type: "nin", number: value } : null;
}

/** Validates a generate-permanent body: name, then email, then identity; the first problem wins. */
export const parsePermanentInput = (body: Body): PermanentInput => {
  const read = fields(body, PERMANENT_FIELDS, PAYER_FIELDS);
  const first = identityOf(read.identity);
  return {
    name: read.name,
    email: read.email,
    identity: first,
    second: secondIdentity(body, first),
    ...payerRules(read),
  };
};

/**
 * The generate-temporary rule with the server's MAX_TRANSFER_KOBO: as parsePermanentInput, then
 * `duration` (optional, default 40), then `expectedAmount` (optional kobo, at most the limit: an
 * account nobody could pay is refused), then `amountPolicy` (optional, default `exact`; only with
 * an expected amount).
 */
export function temporaryRule(maxTransferKobo = DEFAULT_MAX_TRANSFER_KOBO): (body: Body) => TemporaryInput {
  const optional = {
    duration: durationSchema,
    expectedAmount: koboSchema("expectedAmount", maxTransferKobo),
    amountPolicy: amountPolicySchema,
    ...PAYER_FIELDS,
  };
  return (body) => {
    const read = fields(body, PERMANENT_FIELDS, optional);
    const { name, email, identity, duration, expectedAmount, amountPolicy } = read;
    if (amountPolicy !== undefined && expectedAmount === undefined)
      throw validationFailed("amountPolicy needs expectedAmount");
    const first = identityOf(identity);
    return {
      name,
      email,
      identity: first,
      second: secondIdentity(body, first),
      durationMinutes: duration ?? DEFAULT_DURATION_MINUTES,
      expectedAmount: expectedAmount ?? null,
      amountPolicy: amountPolicy ?? (expectedAmount === undefined ? null : "exact"),
      ...payerRules(read),
    };
  };
}

/** A generate-temporary body, checked with the default MAX_TRANSFER_KOBO. */
export const parseTemporaryInput = temporaryRule();

/** The body of POST /account/generate, as its route's contract hands it to Fastify. */
export const permanentInput = parsedBy(parsePermanentInput);

/** The body of POST /account/generate/temporary, with the server's MAX_TRANSFER_KOBO. */
export const temporaryInput = (maxTransferKobo = DEFAULT_MAX_TRANSFER_KOBO) =>
  parsedBy(temporaryRule(maxTransferKobo));

/**
 * The body of POST /account/{accountNumber}/identity (issue 46): the identity to add, under the
 * same names and rules as generate's (`bvn`, `BVN`, `nin`, `NIN`, `ninNumber`, the first sent wins).
 */
export const parseIdentityInput = (body: Body): Identity =>
  identityOf(fields(body, { identity: IDENTITY }).identity);
export const identityInput = parsedBy(parseIdentityInput);

/** PATCH /account/{accountNumber} (issue 46, item 6): what is sent changes, what is absent stays. */
export interface AccountUpdate {
  /** Who may pay in from the next credit on; null: anyone. */
  allowedPayers?: AllowedPayer[] | null;
  onMismatch?: OnMismatch;
}

/** The fields an account's update may send; nothing else. */
export const UPDATABLE_FIELDS = ["allowedPayers", "onMismatch"] as const;
const NOTHING_TO_CHANGE = "send allowedPayers, onMismatch or both";

/**
 * An update's body: only the fields it may change (any other is refused, so that a misspelt field
 * is not silently left as it was), at least one of them; `allowedPayers` a list or null (anyone),
 * `onMismatch` one of its values (not null: it has no "unset").
 */
export const parseAccountUpdate = (body: Body): AccountUpdate => {
  const stranger = Object.keys(body).find(
    (field) => !(UPDATABLE_FIELDS as readonly string[]).includes(field),
  );
  if (stranger !== undefined) {
    const named = /^[A-Za-z0-9_.-]{1,40}$/.test(stranger) ? stranger : "this field";
    throw validationFailed(`${named} cannot be changed: ${NOTHING_TO_CHANGE}`);
  }
  const update: AccountUpdate = {};
  if (Object.hasOwn(body, "allowedPayers"))
    update.allowedPayers =
      body.allowedPayers === null ? null : check(allowedPayersSchema, body.allowedPayers);
  if (Object.hasOwn(body, "onMismatch")) update.onMismatch = check(onMismatchSchema, body.onMismatch);
  if (Object.keys(update).length === 0) throw validationFailed(`nothing to change: ${NOTHING_TO_CHANGE}`);
  return update;
};
export const accountUpdateInput = parsedBy(parseAccountUpdate);
