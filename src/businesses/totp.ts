import { Secret, TOTP } from "otpauth";

// Time-based one-time passwords (RFC 6238) through otpauth: SHA-1, 6 digits, 30-second steps,
// the parameters every authenticator app supports.

const PERIOD_SECONDS = 30;

/** A new random secret (160 bits), base32 as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

const totpFor = (secret: string, label: string) =>
  new TOTP({
    issuer: "Virtual Account Service",
    label,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** The otpauth:// URI an authenticator app imports (as a QR code or pasted). */
export const totpUri = (secret: string, label: string): string => totpFor(secret, label).toString();

/**
 * The time step the code is good for (the current one, or one either side for clock drift), or
 * undefined. A step at or before `lastStep` is refused: each code works once.
 */
export function acceptedTotpStep(
  secret: string,
  code: string,
  now: number,
  lastStep: number | null,
): number | undefined {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpFor(secret, "check").validate({ token, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  return lastStep !== null && step <= lastStep ? undefined : step;
}

/** The code for `now` (tests and the screenshots script sign in with it). */
export const totpCode = (secret: string, now: number): string =>
  totpFor(secret, "code").generate({ timestamp: now });
