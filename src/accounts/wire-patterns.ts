import { MAX_EMAIL_LENGTH, MAX_EMAIL_LOCAL_PART_LENGTH } from "../core/validation.js";
import { BIDI, codePoints, nameOnTheWire, TRIMMED } from "../core/wire-text.js";

// How a name and an email may travel (before the server trims and normalises them), as JSON
// Schema patterns for the OpenAPI document: accounts/api-schemas.ts puts them in the request
// schemas; test/openapi-requests.test.ts checks that they accept exactly what the server does.
// The character sets are core/wire-text.ts's.

export { BIDI, codePoints };

/** A name as sent (core/wire-text.ts): the length is stated in the description only. */
export const NAME_ON_THE_WIRE = nameOnTheWire();

// zod's email pattern (z.regexes.email), case-insensitive already, with the Kelvin sign beside
// the ASCII letters: it is the one other character that lower-cases to one of them (K to k).
const LETTERS = "A-Za-z\\u212a";
const EMAIL = `(?:[${LETTERS}0-9_'+\\-]+\\.)*[${LETTERS}0-9_'+\\-]*[${LETTERS}0-9_+\\-]@(?:[${LETTERS}0-9][${LETTERS}0-9\\-]*\\.)+[${LETTERS}]{2,}`;

/** An email as sent: white space at either end, around an address of at most 254 characters. */
export const EMAIL_ON_THE_WIRE = new RegExp(
  `^[${TRIMMED}]*(?![^${TRIMMED}]{${MAX_EMAIL_LENGTH + 1}})(?=[^@]{1,${MAX_EMAIL_LOCAL_PART_LENGTH}}@)` +
    `${EMAIL}[${TRIMMED}]*$`,
);
