import { z } from "zod";
import { displayNameSchema } from "../display-name.js";
import { validationFailed } from "../errors.js";
import { DEFAULT_MAX_TRANSFER_KOBO, koboSchema } from "../ledger/kobo.js";
import { AMOUNT_POLICIES, type AmountPolicy, type IdentityType } from "../storage/schema.js";

// Field rules as zod schemas, so that a machine-readable contract can be generated from the very
// rules the server applies; the order in which fields are checked, the aliases and the
// "required" messages are the functions below.

export const MAX_NAME_LENGTH = 200;
export const MAX_EMAIL_LENGTH = 254;
export const MIN_DURATION_MINUTES = 1;
export const MAX_DURATION_MINUTES = 10_080;
export const DEFAULT_DURATION_MINUTES = 40;
export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
/** RFC 5321: the part of an address before the `@` is at most 64 octets. */
export const MAX_EMAIL_LOCAL_PART_LENGTH = 64;

export {
  businessNameSchema,
  MAX_BUSINESS_NAME_LENGTH,
  parseBusinessName,
} from "../businesses/business-name.js";
export {
  BIDI_CONTROL_CHARACTERS,
  CONTROL_CHARACTERS,
  displayNameSchema,
  INVISIBLE_ONLY,
  UNPAIRED_SURROGATE,
} from "../display-name.js";

export const nameSchema = displayNameSchema("name", MAX_NAME_LENGTH);

export const emailSchema = z
  .string({ error: "email must be a string" })
  .transform((email) => email.trim().toLowerCase())
  .pipe(
    z
      .email({ error: "email must be a valid email address" })
      .max(MAX_EMAIL_LENGTH, { error: `email must be at most ${MAX_EMAIL_LENGTH} characters` })
      .refine((email) => email.slice(0, email.lastIndexOf("@")).length <= MAX_EMAIL_LOCAL_PART_LENGTH, {
        error: `email must have at most ${MAX_EMAIL_LOCAL_PART_LENGTH} characters before the @`,
      }),
  );

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

export interface PermanentInput {
  name: string;
  email: string;
  identity: Identity;
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

type Body = Record<string, unknown>;

/** A query parameter given at most once, checked by the schema. */
export function singleParam<T>(
  query: Record<string, unknown>,
  field: string,
  schema: z.ZodType<T, unknown>,
): T | undefined {
  const value = query[field];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw validationFailed(`${field} must be given once`);
  return check(schema, value);
}

/** Absent and JSON null both count as "not sent". */
export const isSent = (body: Body, field: string) => Object.hasOwn(body, field) && body[field] != null;

/** The value if the schema accepts it; otherwise a 400 with the schema's first message. */
export function check<T>(schema: z.ZodType<T, unknown>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(result.error.issues[0]?.message ?? "invalid value");
  return result.data;
}

/** A field that must be sent (`<field> is required` otherwise), checked by the schema. */
export function required<T>(body: Body, field: string, schema: z.ZodType<T, unknown>): T {
  if (!isSent(body, field)) throw validationFailed(`${field} is required`);
  return check(schema, body[field]);
}

function identity(body: Body): Identity {
  // bvn wins whenever it is sent: nin and its aliases are then ignored entirely.
  const bvnField = BVN_FIELDS.find((field) => isSent(body, field));
  if (bvnField) return { type: "bvn", number: check(identitySchema(bvnField), body[bvnField]) };
  const ninField = NIN_FIELDS.find((field) => isSent(body, field));
  if (ninField) return { type: "nin", number: check(identitySchema(ninField), body[ninField]) };
  throw validationFailed("bvn or nin is required");
}

/** Validates a generate-permanent body: name, then email, then identity; the first problem wins. */
export function parsePermanentInput(body: Body): PermanentInput {
  const name = required(body, "name", nameSchema);
  const email = required(body, "email", emailSchema);
  return { name, email, identity: identity(body) };
}

/**
 * As parsePermanentInput, then `duration` (optional, default 40), then `expectedAmount`
 * (optional kobo, at most `maxTransferKobo`: an account nobody could pay is refused), then
 * `amountPolicy` (optional, default `exact`; only with an expected amount).
 */
export function parseTemporaryInput(body: Body, maxTransferKobo = DEFAULT_MAX_TRANSFER_KOBO): TemporaryInput {
  const input = parsePermanentInput(body);
  const durationMinutes = isSent(body, "duration")
    ? check(durationSchema, body.duration)
    : DEFAULT_DURATION_MINUTES;
  const expectedAmount = isSent(body, "expectedAmount")
    ? check(koboSchema("expectedAmount", maxTransferKobo), body.expectedAmount)
    : null;
  let amountPolicy: AmountPolicy | null = null;
  if (isSent(body, "amountPolicy")) {
    amountPolicy = check(amountPolicySchema, body.amountPolicy);
    if (expectedAmount === null) throw validationFailed("amountPolicy needs expectedAmount");
  } else if (expectedAmount !== null) {
    amountPolicy = "exact";
  }
  return { ...input, durationMinutes, expectedAmount, amountPolicy };
}

export interface ListQuery {
  page: number;
  limit: number;
}

interface QueryInteger {
  fallback: number;
  max: number;
  /** Not whole decimal digits, or below 1. */
  invalid: string;
  /** Above max. */
  tooLarge: string;
}

function queryInteger(query: Record<string, unknown>, field: string, rule: QueryInteger): number {
  const value = query[field];
  if (value === undefined) return rule.fallback;
  // A repeated parameter (`?page=1&page=2`) arrives as an array: say so rather than pick one.
  if (Array.isArray(value)) throw validationFailed(`${field} must be given once`);
  if (typeof value !== "string" || !/^\d+$/.test(value)) throw validationFailed(rule.invalid);
  // Leading zeros are allowed; the digits after them decide the size. Past 16 digits the value
  // is no safe integer, so it is not converted at all (Number() would round it).
  const digits = value.replace(/^0+(?=\d)/, "");
  const number = digits.length <= 16 ? Number(digits) : Number.POSITIVE_INFINITY;
  if (number < 1) throw validationFailed(rule.invalid);
  if (number > rule.max) throw validationFailed(rule.tooLarge);
  return number;
}

/**
 * Validates list query parameters: whole numbers only, page 1..2^53-1, limit 1..100, each
 * given at most once.
 */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const limitMessage = `limit must be a whole number from 1 to ${MAX_LIMIT}`;
  return {
    page: queryInteger(query, "page", {
      fallback: DEFAULT_PAGE,
      max: Number.MAX_SAFE_INTEGER,
      invalid: "page must be a whole number of at least 1",
      tooLarge: `page must be at most ${Number.MAX_SAFE_INTEGER}`,
    }),
    limit: queryInteger(query, "limit", {
      fallback: DEFAULT_LIMIT,
      max: MAX_LIMIT,
      invalid: limitMessage,
      tooLarge: limitMessage,
    }),
  };
}
