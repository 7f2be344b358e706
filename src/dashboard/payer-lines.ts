import { allowedPayerSchema, MAX_ALLOWED_PAYERS, MAX_NAME_LENGTH } from "../accounts/validation.js";
import type { AllowedPayer, OnMismatch } from "../core/api-types.js";
import { ON_MISMATCH } from "../core/api-types.js";
import { fieldsInvalid } from "../errors.js";

// Who may pay into an account as the dashboard's form writes it (issue 46, item 6): one payer a
// line, an account ("0123456789 058": its number, then its bank's code) or a name; no line at all
// lets anyone pay. Each problem is said by its line, every one at once, beside the field.

/** A line that is an account: 10 digits, then the bank's code, apart by a space, comma, colon or slash. */
const ACCOUNT_LINE = /^(\d{10})\s*[\s,;:/]\s*(\d{3,6})$/;
/** A line of digits and separators only: meant as an account, whatever it lacks. */
const DIGITS_LINE = /^[\d\s,;:/-]+$/;

const LABEL = "Who may pay in";

/** The form's fields as the API's PATCH /account/{accountNumber} body (its rules are applied after). */
export function payersBody(form: Readonly<Record<string, string | undefined>>): {
  allowedPayers: AllowedPayer[] | null;
  onMismatch: OnMismatch;
} {
  const problems: Record<string, string> = {};
  const lines = (form.allowedPayers ?? "")
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const said: string[] = [];
  const payers = lines.map((line, i) => {
    const payer = payerOf(line);
    if (typeof payer === "string") said.push(`line ${i + 1}: ${payer}`);
    return payer;
  });
  if (lines.length > MAX_ALLOWED_PAYERS) {
    said.unshift(`at most ${MAX_ALLOWED_PAYERS} payers, one a line (${lines.length} given)`);
  }
  if (said.length > 0) problems.allowedPayers = `${LABEL}: ${said.join("; ")}`;
  const onMismatch = (ON_MISMATCH as readonly string[]).includes(form.onMismatch ?? "")
    ? (form.onMismatch as OnMismatch)
    : undefined;
  if (onMismatch === undefined) {
    problems.onMismatch = "Choose what becomes of a payment from anyone else: decline it or hold it";
  }
  if (Object.keys(problems).length > 0 || onMismatch === undefined) throw fieldsInvalid(problems);
  const allowed = payers.filter((payer): payer is AllowedPayer => typeof payer !== "string");
  return { allowedPayers: allowed.length === 0 ? null : allowed, onMismatch };
}

/** A line as a payer, or what is wrong with it. */
function payerOf(line: string): AllowedPayer | string {
  const account = ACCOUNT_LINE.exec(line);
  if (account) return { accountNumber: account[1] ?? "", bankCode: account[2] ?? "" };
  if (DIGITS_LINE.test(line)) {
    return "an account is its 10-digit number, then its bank's code (3 to 6 digits), like 0123456789 058";
  }
  if (!allowedPayerSchema.safeParse({ name: line }).success) {
    return `a name is at most ${MAX_NAME_LENGTH} characters, with a letter or a digit`;
  }
  return { name: line };
}
