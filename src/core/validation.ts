import { z } from "zod";
import { validationFailed } from "../errors.js";
import type { Pagination } from "./api-types.js";

// The validation helpers every domain shares: a zod schema's first message as a 400, required
// and optional fields, query parameters given once, list paging, and the email rule.

export const MAX_EMAIL_LENGTH = 254;
/** RFC 5321: the part of an address before the `@` is at most 64 octets. */
export const MAX_EMAIL_LOCAL_PART_LENGTH = 64;
export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

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

/** A request body, as parsed JSON. */
export type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * One input's rule as a zod schema: an object (a JSON body, a query) read by `parse`, which
 * checks its fields in order and throws the first problem as an AppError (a 400 naming the
 * field, or a 404 for an id that cannot exist). The route contracts hand these to Fastify
 * (http/contract-validation.ts), and the dashboard and the CLI read their input with the
 * same schema (`check`): one rule, whoever asks.
 */
export function parsedBy<T>(parse: (input: Body) => T): z.ZodType<T, Body> {
  // One function between zod and the rule (not a check, then a transform): see the walks in
  // docs/architecture.md.
  return z.custom<Body>().transform((input, context) => {
    if (isObject(input)) return parse(input);
    context.addIssue({ code: "custom", message: "expected an object", input });
    return z.NEVER;
  });
}

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

/**
 * A needed field that may be sent under several names (aliases, or either of two fields): the
 * first of `names` sent counts, read by its own schema, and the others are ignored, even when
 * invalid; `missing` is the answer when none is sent. Read by `fields` as `{ name, value }`.
 */
export class FirstSent<T> {
  constructor(
    readonly names: ReadonlyArray<readonly [name: string, schema: z.ZodType<T, unknown>]>,
    readonly missing: string,
  ) {}
}

type FieldRule = z.ZodType<unknown, unknown> | FirstSent<unknown>;
type FieldSchemas = Record<string, FieldRule>;
type OptionalSchemas = Record<string, z.ZodType<unknown, unknown>>;
type FieldRead<S> = S extends FirstSent<infer T> ? { name: string; value: T } : z.output<S & z.ZodType>;
type FieldsRead<S extends FieldSchemas> = { [K in keyof S]: FieldRead<S[K]> };

function firstSent<T>(body: Body, { names, missing }: FirstSent<T>): { name: string; value: T } {
  for (const [name, schema] of names)
    if (isSent(body, name)) return { name, value: check(schema, body[name]) };
  throw validationFailed(missing);
}

/**
 * A body's fields in the order given: each of `needed` (as `required`: `<field> is required`
 * when it is not sent; a FirstSent by whichever of its names was sent), then each of `optional`
 * that was sent, checked by its schema; the first problem is the answer. One call for a body, so
 * that a rule reads its fields without going back and forth between its room and this one
 * (docs/architecture.md, the walks).
 */
export function fields<R extends FieldSchemas, O extends OptionalSchemas = Record<never, never>>(
  body: Body,
  needed: R,
  optional?: O,
): Read<R, O> {
  const read: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(needed))
    read[field] = rule instanceof FirstSent ? firstSent(body, rule) : required(body, field, rule);
  for (const [field, rule] of Object.entries(optional ?? {})) {
    if (isSent(body, field)) read[field] = check(rule, body[field]);
  }
  return read as Read<R, O>;
}

type Read<R extends FieldSchemas, O extends OptionalSchemas> = FieldsRead<R> & Partial<FieldsRead<O>>;

/**
 * A body's rule as data: its fields (`fields`' `needed` and `optional`), then `finish`, when
 * given, on what was read (a rule between fields, a shape of the domain's own). The parse is
 * this room's, so a contract built on it (`parsedBy`) enters the rule's room only for `finish`
 * (docs/architecture.md, the walks); its schemas are made once, not per body.
 */
export function fieldsRule<R extends FieldSchemas, O extends OptionalSchemas>(
  needed: R,
  optional: O,
): (body: Body) => Read<R, O>;
export function fieldsRule<R extends FieldSchemas, O extends OptionalSchemas, T>(
  needed: R,
  optional: O,
  finish: (read: Read<R, O>) => T,
): (body: Body) => T;
export function fieldsRule<R extends FieldSchemas, O extends OptionalSchemas, T>(
  needed: R,
  optional: O,
  finish?: (read: Read<R, O>) => T,
): (body: Body) => T | Read<R, O> {
  return finish ? (body) => finish(fields(body, needed, optional)) : (body) => fields(body, needed, optional);
}

/** Where a list page is in the whole list. */
export type { Pagination };

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

/**
 * How many items come before `page`: past every list there can be (a page of 2^53 - 1) it stays a
 * safe integer, so such a page is past the end, answered empty with the true totals as any other.
 */
export const listOffset = ({ page, limit }: ListQuery) =>
  Math.min((page - 1) * limit, Number.MAX_SAFE_INTEGER);

/** GET lists' `page` and `limit`, as the contracts hand them to Fastify. */
export const listQuery = parsedBy(parseListQuery);

/** An instant in a query: ISO 8601 with a zone, normalised to the stored form (UTC, milliseconds). */
export function queryInstant(query: Record<string, unknown>, field: string): string | undefined {
  const value = query[field];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw validationFailed(`${field} must be given once`);
  const parsed = z.iso.datetime({ offset: true }).safeParse(value);
  if (!parsed.success) {
    throw validationFailed(`${field} must be an ISO 8601 date-time with a zone, like 2026-01-31T23:00:00Z`);
  }
  return new Date(parsed.data).toISOString();
}

/** `from` and `to`, instants in a query, the first not after the second. */
export function queryRange(query: Record<string, unknown>): { from?: string; to?: string } {
  const from = queryInstant(query, "from");
  const to = queryInstant(query, "to");
  if (from !== undefined && to !== undefined && from > to)
    throw validationFailed("from must not be after to");
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}
