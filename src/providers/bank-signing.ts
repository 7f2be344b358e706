import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import type { z } from "zod";
import { bankMessageStale, bankSignatureInvalid, validationFailed } from "../errors.js";

// The bank protocol's signatures (issue 14, docs/bank-integration.md), shaped like PalmPay's
// merchant API: every request and every notification carries `requestTime` (milliseconds) and a
// `nonceStr`; its top-level parameters, sorted by name, make a canonical string that the sender
// signs with RSA-SHA256 (PKCS#1 v1.5) and the receiver verifies with the sender's public key.
// Pure and synchronous: the HTTP adapter and the Virtual Bank server both sign and verify here.

/** How far a signed message's `requestTime` may be from the receiver's clock. */
export const SIGNED_MESSAGE_WINDOW_MS = 5 * 60_000;

/** A parameter value as the protocol carries it. Objects and arrays are signed as their JSON. */
export type ProtocolValue = string | number | boolean | null | undefined | object;

/**
 * `name=value` for every parameter with a value, sorted by name (code-unit order), joined with
 * `&`. Absent, null and empty values are left out (so an optional field sent empty signs like
 * one not sent); numbers and booleans as JavaScript prints them; objects and arrays as their
 * JSON. Names and values are percent-encoded (encodeURIComponent): a payer-typed `&` or `=` in
 * a narration can never make one signed string read as other parameters. The `sign` parameter
 * itself, if present, is never part of what it signs.
 */
export function canonicalString(params: Readonly<Record<string, ProtocolValue>>): string {
  return Object.keys(params)
    .filter((name) => name !== "sign")
    .sort()
    .flatMap((name) => {
      const value = params[name];
      if (value === undefined || value === null || value === "") return [];
      const text = typeof value === "object" ? JSON.stringify(value) : String(value);
      return [`${encodeURIComponent(name)}=${encodeURIComponent(text)}`];
    })
    .join("&");
}

/** The signature of the parameters' canonical string: RSA-SHA256, base64. */
export function signParams(params: Readonly<Record<string, ProtocolValue>>, privateKey: KeyObject): string {
  return sign("sha256", Buffer.from(canonicalString(params), "utf8"), privateKey).toString("base64");
}

/** Whether `signature` (base64) signs these parameters under the public key. Never throws. */
export function verifyParams(
  params: Readonly<Record<string, ProtocolValue>>,
  signature: unknown,
  publicKey: KeyObject,
): boolean {
  if (typeof signature !== "string" || signature.length === 0 || signature.length > 2048) return false;
  try {
    return verify(
      "sha256",
      Buffer.from(canonicalString(params), "utf8"),
      publicKey,
      Buffer.from(signature, "base64"),
    );
  } catch {
    return false;
  }
}

/** Whether a message's `requestTime` (milliseconds) is a whole number within the window of `now`. */
export function isFreshMessage(requestTime: unknown, now: number): boolean {
  const time =
    typeof requestTime === "string" && /^\d{1,16}$/.test(requestTime) ? Number(requestTime) : requestTime;
  return (
    typeof time === "number" && Number.isSafeInteger(time) && Math.abs(now - time) <= SIGNED_MESSAGE_WINDOW_MS
  );
}

/** An RSA private key from PEM, refused with a clear message when it is not one (config checks). */
export function rsaPrivateKey(pem: string, what: string): KeyObject {
  return requireRsa(
    parseKey(() => createPrivateKey(pem), what),
    what,
  );
}

/** An RSA public key from PEM (a public key, or a private key's public half). */
export function rsaPublicKey(pem: string, what: string): KeyObject {
  return requireRsa(
    parseKey(() => createPublicKey(pem), what),
    what,
  );
}

function requireRsa(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== "rsa") {
    throw new Error(
      `${what} holds an ${String(key.asymmetricKeyType).toUpperCase()} key; the protocol signs with RSA`,
    );
  }
  return key;
}

function parseKey(parse: () => KeyObject, what: string): KeyObject {
  try {
    return parse();
  } catch (error) {
    throw new Error(`${what} is not a PEM key: ${(error as Error).message}`);
  }
}

declare const verified: unique symbol;
/** A message's parameters whose `sign` verified with the bank's key; nothing else checked yet. */
export type SignedMessage = Readonly<Record<string, ProtocolValue>> & { readonly [verified]: true };

/**
 * A notification's body as the bank signed it, checked first so that a sender without the bank's
 * key learns nothing else about what it sent. Throws when it cannot be the bank's: not a JSON
 * object (VALIDATION_FAILED), or a `sign` that does not verify (BANK_SIGNATURE_INVALID).
 */
export function authenticateBankMessage(body: unknown, bankPublicKey: KeyObject): SignedMessage {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The notification must be a JSON object");
  }
  const params = body as Record<string, ProtocolValue>;
  if (!verifyParams(params, params.sign, bankPublicKey)) throw bankSignatureInvalid();
  return params as SignedMessage;
}

/**
 * A signed notification's freshness, shape and app id, checked in that order after its
 * signature (authenticateBankMessage): its parameters as `schema` reads them, or the refusal
 * (BANK_MESSAGE_STALE, VALIDATION_FAILED naming the parameter, BANK_SIGNATURE_INVALID).
 */
export function checkedNotification<T extends { appId: string }>(
  params: SignedMessage,
  schema: z.ZodType<T>,
  appId: string,
  now: number,
): T {
  if (!isFreshMessage(params.requestTime, now)) throw bankMessageStale();
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationFailed(`Invalid notification: ${issue?.path.join(".") || "body"}: ${issue?.message}`);
  }
  if (parsed.data.appId !== appId) throw bankSignatureInvalid("The notification is for another app id");
  return parsed.data;
}
