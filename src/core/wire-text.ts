import { BIDI_CONTROL_CHARACTERS } from "../display-name.js";

// How a name and free text may travel (before the server trims and normalises them), as JSON
// Schema patterns for the OpenAPI document. Regular-expression sources, ECMA-262 as JSON Schema's
// `pattern` is, written so that they mean the same with the `u` flag (Ajv, so Prism) and without
// it: test/openapi-requests.test.ts tries every UTF-16 code unit against the server's own rules.

/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), all of it. */
export const TRIMMED =
  "\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
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
/** A surrogate pair: one code point, as the `u` flag reads it, spelled so that it is one without. */
const PAIR = "[\\ud800-\\udbff][\\udc00-\\udfff]";
/** One character of a name that is not white space; a surrogate only in a pair. */
const CHARACTER = `(?:${PAIR}|[^${TRIMMED}${CONTROLS}${BIDI}\\ud800-\\udfff])`;
/** Characters, white space between them but no control character. */
const TEXT = `${CHARACTER}(?:[${SPACES}]*${CHARACTER})*`;

/**
 * At most `maxLength` code points once white space is trimmed from both ends: as JSON Schema's
 * maxLength counts, but after the trim the server makes first. (The server counts after NFC too,
 * which the pattern cannot: docs/api.md says so.)
 */
const atMost = (maxLength: number | undefined) =>
  maxLength === undefined ? "" : `(?=[${TRIMMED}]*(?:${PAIR}|[^]){0,${maxLength}}[${TRIMMED}]*$)`;

/**
 * A name as sent: white space at either end, then at least one character, with no control or
 * bidi-control character nor unpaired surrogate inside, and at most `maxLength` code points
 * between the white space. NFC normalisation maps no character into or out of these sets, so
 * judging the text before it is judging it after. Not stated: that not every character may be
 * invisible.
 */
export const nameOnTheWire = (maxLength?: number) =>
  new RegExp(`^${atMost(maxLength)}[${TRIMMED}]*${TEXT}[${TRIMMED}]*$`);

/** Free text as sent (the display-text rule): as a name, but it may be empty or only white space. */
export const displayTextOnTheWire = (maxLength?: number) =>
  new RegExp(`^${atMost(maxLength)}[${TRIMMED}]*(?:${TEXT})?[${TRIMMED}]*$`);
