/** Weights of the CBN NUBAN check digit (2020 revision): 6-digit institution code, then 9-digit serial. */
const CODE_WEIGHTS = [3, 7, 3, 3, 7, 3] as const;
const SERIAL_WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3] as const;

/** Largest serial a NUBAN can carry (9 digits). */
export const SERIAL_SPACE = 1_000_000_000;

/** Accepts the 3-digit codes of deposit money banks too: they are left-padded to 6 digits. */
function normaliseCode(institutionCode: string): string {
  if (!/^\d{3}$|^\d{6}$/.test(institutionCode))
    throw new RangeError("institution code must be 3 or 6 digits");
  return institutionCode.padStart(6, "0");
}

/** The check digit of a 9-digit serial at an institution. */
export function nubanCheckDigit(institutionCode: string, serial: string): number {
  if (!/^\d{9}$/.test(serial)) throw new RangeError("serial must be 9 digits");
  const code = normaliseCode(institutionCode);
  let sum = 0;
  CODE_WEIGHTS.forEach((weight, i) => {
    sum += Number(code[i]) * weight;
  });
  SERIAL_WEIGHTS.forEach((weight, i) => {
    sum += Number(serial[i]) * weight;
  });
  return (10 - (sum % 10)) % 10;
}

/** The 10-digit NUBAN for a serial number (0 <= serial < 10^9). */
export function nubanFromSerial(institutionCode: string, serial: number): string {
  if (!Number.isInteger(serial) || serial < 0 || serial >= SERIAL_SPACE)
    throw new RangeError("serial out of range");
  const digits = String(serial).padStart(9, "0");
  return `${digits}${nubanCheckDigit(institutionCode, digits)}`;
}

/** True when a 10-digit account number carries the right check digit for the institution. */
export function isValidNuban(institutionCode: string, accountNumber: string): boolean {
  if (!/^\d{10}$/.test(accountNumber)) return false;
  return nubanCheckDigit(institutionCode, accountNumber.slice(0, 9)) === Number(accountNumber[9]);
}
