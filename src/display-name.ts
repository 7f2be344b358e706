import { z } from "zod";

// The rule for a name shown to people (a customer's, a business's, a payer's): one rule, used
// by the account, business and collections domains and the bank protocol alike; and the
// display-text rule for free text, below, built on the same character sets.

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
 * stored and answered), then non-empty, at most `maxLength` code points, no control or
 * bidi-control character, and not invisible.
 */
export function displayNameSchema(field: string, maxLength: number) {
  return textRule(field, (text) =>
    text === ""
      ? `${field} must be a non-empty string`
      : codePointLength(text) > maxLength
        ? `${field} must be at most ${maxLength} characters`
        : uncleanIn(text, field, true),
  );
}

/**
 * A text rule as one function zod calls once per field (docs/architecture.md, the walks): a
 * string, valid Unicode (no unpaired surrogate), then NFC-normalised and trimmed, then the
 * normalised text's first problem (`problemIn`), if any, is the field's answer; `finish` makes
 * what is kept of clean text (the text itself unless given).
 */
function textRule(
  field: string,
  problemIn: (text: string) => string | undefined,
  finish: (text: string) => string = (text) => text,
) {
  return z.string({ error: `${field} must be a string` }).transform((sent, context) => {
    const text = UNPAIRED_SURROGATE.test(sent) ? undefined : sent.normalize("NFC").trim();
    const problem =
      text === undefined
        ? `${field} must not contain unpaired surrogates (it must be valid Unicode text)`
        : problemIn(text);
    if (text === undefined || problem !== undefined) {
      context.addIssue({ code: "custom", message: problem, input: sent });
      return z.NEVER;
    }
    return finish(text);
  });
}

/**
 * The characters a name or a display text may not contain, checked in this order (the first
 * found is the one answered): control characters, bidi controls, and for a name nothing visible.
 */
function uncleanIn(text: string, field: string, mustShow: boolean): string | undefined {
  return CONTROL_CHARACTERS.test(text)
    ? `${field} must not contain control characters`
    : BIDI_CONTROL_CHARACTERS.test(text)
      ? `${field} must not contain bidirectional control characters`
      : mustShow && INVISIBLE_ONLY.test(text)
        ? `${field} must contain a visible character`
        : undefined;
}

// Free text shown to people (a narration, a reason, a profile field) follows the same rule as a
// name, except that it may be empty and is not checked for visibility: no control characters,
// no bidi controls, valid Unicode; NFC-normalised and trimmed; lengths counted as names count
// them, in Unicode code points after normalisation (as zod's and JSON Schema's lengths count: an
// emoji outside the Basic Multilingual Plane is one, not JavaScript's two).

/** Every character the display-text rule refuses, to clean text that must not be refused. */
const UNCLEAN = {
  controls: new RegExp(`${CONTROL_CHARACTERS.source}+`, "gu"),
  bidi: new RegExp(BIDI_CONTROL_CHARACTERS.source, "gu"),
  surrogates: new RegExp(UNPAIRED_SURROGATE.source, "gu"),
};

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/** How many code points `text` has: the length every text rule counts. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * `text` cut to at most `maxLength` code points at a grapheme boundary, so no character is split
 * and no accent parted from its letter; a single grapheme longer than the whole limit (hundreds
 * of stacked marks) is cut at a code point boundary instead.
 */
export function truncateText(text: string, maxLength: number): string {
  // No more code units than the limit: no more code points either.
  if (text.length <= maxLength) return text;
  let end = 0;
  let counted = 0;
  for (const { segment } of graphemes.segment(text)) {
    const points = codePointLength(segment);
    if (counted + points > maxLength) {
      if (points > maxLength) {
        for (const codePoint of segment) {
          if (counted === maxLength) break;
          end += codePoint.length;
          counted++;
        }
      }
      break;
    }
    end += segment.length;
    counted += points;
  }
  return text.slice(0, end).trimEnd();
}

/**
 * Text from outside that must not be refused (a narration in a bank's notification: refusing it
 * would reverse a payment) made to follow the display-text rule: unpaired surrogates become
 * U+FFFD, each run of control characters one space, bidi controls are removed; then NFC, trimmed
 * and cut to `maxLength` (truncateText). Cleaning clean text changes nothing.
 */
export function cleanDisplayText(text: string, maxLength: number): string {
  const cleaned = text
    .replace(UNCLEAN.surrogates, "\ufffd")
    .replace(UNCLEAN.controls, " ")
    .replace(UNCLEAN.bidi, "")
    .normalize("NFC")
    .trim();
  // A prefix of NFC text is NFC in practice; normalising again keeps that a fact, not a hope.
  return truncateText(truncateText(cleaned, maxLength).normalize("NFC"), maxLength);
}

/**
 * The display-text rule for text a person sends (the API, the dashboard, the CLI), with messages
 * that name `field`: valid Unicode, then NFC and trimmed, then no control or bidi-control
 * character; may be empty. Longer than `maxLength` after that is refused, or cut (truncateText)
 * where the text is a copy of what someone typed elsewhere (a narration).
 */
export function displayTextSchema(field: string, maxLength: number, tooLong: "refuse" | "truncate") {
  return tooLong === "refuse"
    ? textRule(
        field,
        (text) =>
          uncleanIn(text, field, false) ??
          (codePointLength(text) > maxLength
            ? `${field} must be at most ${maxLength} characters`
            : undefined),
      )
    : textRule(
        field,
        (text) => uncleanIn(text, field, false),
        (text) => truncateText(text, maxLength),
      );
}

/**
 * Text typed into a form field (a textarea's line breaks included): runs of white space become
 * one space, then the display-text rule, refusing what is too long.
 */
export function formTextSchema(field: string, maxLength: number) {
  return z
    .string({ error: `${field} must be a string` })
    .transform((text) => text.replace(/\s+/g, " "))
    .pipe(displayTextSchema(field, maxLength, "refuse"));
}
