import { randomInt } from "node:crypto";

// Recovery codes (issue 28): ten one-time codes that sign a user in when the authenticator is
// lost. They sign in and nothing more: money and the second factor itself take the app's code.

/** How many recovery codes come with two-factor sign-in. */
export const RECOVERY_CODE_COUNT = 10;

/** A recovery code as typed: ten letters and digits, a dash in the middle or not (never a 6-digit TOTP code). */
export const RECOVERY_CODE = /^[a-z2-9]{5}-?[a-z2-9]{5}$/i;

/** Letters and digits no one misreads (no 0/o, 1/l/i). */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** A new recovery code, `xxxxx-xxxxx`: about 49 bits, drawn without bias. */
export const newRecoveryCode = () => {
  const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]);
  return `${chars.slice(0, 5).join("")}-${chars.slice(5).join("")}`;
};
