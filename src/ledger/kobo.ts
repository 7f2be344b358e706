import { z } from "zod";

// Every amount the service takes or gives is integer kobo (NGN 1 = 100 kobo): a JSON number that
// is a whole, safe integer. "100.00", 1.5 and "150" are refused, never rounded or coerced.

/** The default MAX_TRANSFER_KOBO: NGN 10,000,000. */
export const DEFAULT_MAX_TRANSFER_KOBO = 1_000_000_000;

/** A positive whole number of kobo, at most `max`, sent as `field`. */
export function koboSchema(field: string, max: number, shownMax = max) {
  // `shownMax`: the limit a person should be told (the configured one), where a larger `max`
  // is refused later with a code of its own (AMOUNT_ABOVE_LIMIT).
  const message = `${field} must be a whole number of kobo from 1 to ${shownMax}`;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(1, { error: message })
    .max(max, { error: message });
}

/** Naira, for people to read: 150000 kobo -> "NGN 1,500.00" (integer arithmetic, no rounding). */
export function formatNaira(kobo: number): string {
  const sign = kobo < 0 ? "-" : "";
  const abs = Math.abs(kobo);
  const naira = Math.floor(abs / 100).toLocaleString("en-US");
  return `${sign}NGN ${naira}.${String(abs % 100).padStart(2, "0")}`;
}
