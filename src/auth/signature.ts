import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a request's timestamp may be from server time, either side. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

/** What a request without a body signs in place of the body. `""` is accepted too (see verify). */
export const EMPTY_BODY = "{}";

/**
 * The signature of one request: lowercase hex HMAC-SHA256, keyed with the secret key, over the
 * body (exact bytes) immediately followed by the decimal timestamp. This is the function the
 * server verifies against; clients (and the tests) sign with it too.
 */
export function sign(secretKey: string, body: string | Uint8Array, timestamp: string | number): string {
  return createHmac("sha256", secretKey).update(body).update(String(timestamp)).digest("hex");
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * True when `signature` (hex, either case) is the signature of any candidate body with this
 * timestamp. Every candidate is computed and compared in constant time, so timing says nothing
 * about which part of a signature was right.
 */
export function verifySignature(
  secretKey: string,
  candidateBodies: ReadonlyArray<string | Uint8Array>,
  timestamp: string,
  signature: string,
): boolean {
  if (!HEX_SHA256.test(signature)) return false;
  const given = Buffer.from(signature, "hex");
  let matched = false;
  for (const body of candidateBodies) {
    const expected = createHmac("sha256", secretKey).update(body).update(timestamp).digest();
    matched = timingSafeEqual(expected, given) || matched;
  }
  return matched;
}

/** A whole number of milliseconds written in decimal digits, or undefined. */
export function parseTimestamp(header: string): number | undefined {
  if (!/^\d{1,16}$/.test(header)) return undefined;
  const value = Number(header);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** True when the timestamp is within the tolerance either side of `now`. */
export function isFresh(timestampMs: number, nowMs: number): boolean {
  return Math.abs(nowMs - timestampMs) <= TIMESTAMP_TOLERANCE_MS;
}
