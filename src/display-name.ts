import { z } from "zod";

// The rule for a name shown to people (a customer's, a business's): one rule, used by the
// account and business domains alike.

/** C0 and C1 control characters and the Unicode line separators: never part of a name. */
export const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029]/u;
/** Characters that reorder the text around them (Trojan Source): a name must not contain them. */
export const BIDI_CONTROL_CHARACTERS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/**
 * A name made only of these shows nothing: whitespace, and the characters Unicode says to draw
 * as nothing (zero-width spaces and joiners, word joiner, BOM, the Hangul fillers, the Mongolian
 * vowel separator, variation selectors, tags...), plus the blank Braille pattern.
 */
export const INVISIBLE_ONLY = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]*$/u;
/** A UTF-16 surrogate not part of a pair: no character at all, and not storable as UTF-8. */
export const UNPAIRED_SURROGATE = /\p{Surrogate}/u;

/**
 * The one rule for a name shown to people (a customer's, a business's), with messages that name
 * `field`: checked as sent for unpaired surrogates, then NFC-normalised and trimmed (what is
 * stored and answered), then non-empty, at most `maxLength` UTF-16 code units, no control or
 * bidi-control character, and not invisible.
 */
export function displayNameSchema(field: string, maxLength: number) {
  return z
    .string({ error: `${field} must be a string` })
    .refine((name) => !UNPAIRED_SURROGATE.test(name), {
      error: `${field} must not contain unpaired surrogates (it must be valid Unicode text)`,
      abort: true,
    })
    .transform((name) => name.normalize("NFC").trim())
    .pipe(
      z
        .string()
        .min(1, { error: `${field} must be a non-empty string` })
        .max(maxLength, { error: `${field} must be at most ${maxLength} characters` })
        .refine((name) => !CONTROL_CHARACTERS.test(name), {
          error: `${field} must not contain control characters`,
          abort: true,
        })
        .refine((name) => !BIDI_CONTROL_CHARACTERS.test(name), {
          error: `${field} must not contain bidirectional control characters`,
          abort: true,
        })
        .refine((name) => !INVISIBLE_ONLY.test(name), {
          error: `${field} must contain a visible character`,
          abort: true,
        }),
    );
}
