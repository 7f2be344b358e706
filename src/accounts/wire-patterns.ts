import { MAX_EMAIL_LENGTH, MAX_EMAIL_LOCAL_PART_LENGTH } from "../core/validation.js";
import { BIDI_CONTROL_CHARACTERS } from "../display-name.js";

// How a name and an email may travel (before the server trims and normalises them), as JSON
// Schema patterns for the OpenAPI document: accounts/api-schemas.ts puts them in the request
// schemas; test/openapi-requests.test.ts checks that they accept exactly what the server does.

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
export const BIDI = BIDI_CONTROL_CHARACTERS.source.slice(1, -1);
/** `\\u061c\\u202a-\\u202e` as `U+061C, U+202A-U+202E`. */
export const codePoints = (characterClass: string) =>
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
