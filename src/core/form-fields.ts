import { fieldsInvalid, isAppError, validationFailed } from "../errors.js";
import { emailSchema } from "./validation.js";

// A form checked as a person reads it (issue 28, item 6): every field's problem at once, each
// in words that use the field's label ("Contact email is not an email address"), never the
// API's names. A refusal carries them by field (AppError.fields); a page shows each beside its
// field, and the message lists them all.

/** What a field's check gets: its value, trimmed (a field is required when empty after that). */
type FieldCheck<T> = (value: string) => T;

/**
 * Checks each field of `form` with its check, in order; the values, or one 400 naming every
 * field that failed (an empty one is "<label> is required"; a check's refusal is kept as worded).
 */
export function checkForm<
  C extends Record<string, { label: string; check: FieldCheck<unknown>; optional?: boolean }>,
>(form: Readonly<Record<string, unknown>>, checks: C): { [K in keyof C]: ReturnType<C[K]["check"]> } {
  const values: Record<string, unknown> = {};
  const fields: Record<string, string> = {};
  for (const [name, { label, check, optional }] of Object.entries(checks)) {
    const raw = form[name];
    const value = typeof raw === "string" ? raw : "";
    if (value.trim() === "") {
      // An empty optional field is absent: its check never sees it.
      if (!optional) fields[name] = `${label} is required`;
      continue;
    }
    try {
      values[name] = check(value);
    } catch (error) {
      if (!isAppError(error) || error.statusCode !== 400) throw error;
      fields[name] = error.message;
    }
  }
  if (Object.keys(fields).length > 0) throw fieldsInvalid(fields);
  return values as { [K in keyof C]: ReturnType<C[K]["check"]> };
}

/** A message that names a field by what the API calls it ("email must be ..."), named by its label instead. */
export function inLabelWords(label: string, message: string, apiName: string): string {
  const rest = message.startsWith(apiName) ? message.slice(apiName.length).trimStart() : message;
  return `${label} ${rest}`;
}

/** Runs `check`; a 400 it throws naming the field by `apiName` is reworded to name it by `label`. */
export function labelled<T>(label: string, apiName: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!isAppError(error) || error.statusCode !== 400) throw error;
    throw validationFailed(inLabelWords(label, error.message, apiName));
  }
}

/** A form's email field: trimmed and lower-cased, or "<label> is not an email address". */
export function emailField(label: string): (value: string) => string {
  return (value) => {
    const parsed = emailSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const tooLong = parsed.error.issues.some((issue) => /at most/.test(issue.message));
    throw validationFailed(
      tooLong ? `${label} is too long for an email address` : `${label} is not an email address`,
    );
  };
}

/** A field of exactly `count` digits (an account number, a BVN): "<label> must be exactly N digits". */
export function digitsField(label: string, count: number): (value: string) => string {
  return (value) => {
    const digits = value.trim();
    if (!new RegExp(`^\\d{${count}}$`).test(digits))
      throw validationFailed(`${label} must be exactly ${count} digits`);
    return digits;
  };
}

/**
 * A domain's 400 that names one of a form's fields by the API's name ("url must be https"), as
 * that field's refusal in the words of its label ("URL must be https"), shown beside it; any
 * other error as it is. `fields` maps the API's names to the form's field and its label.
 */
export function asFieldRefusal(
  error: unknown,
  fields: Readonly<Record<string, { field: string; label: string }>>,
): unknown {
  if (!isAppError(error) || error.statusCode !== 400 || error.fields !== undefined) return error;
  for (const [apiName, { field, label }] of Object.entries(fields)) {
    if (error.message.startsWith(`${apiName} `)) {
      return fieldsInvalid({ [field]: inLabelWords(label, error.message, apiName) });
    }
  }
  return error;
}
