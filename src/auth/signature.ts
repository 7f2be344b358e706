import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** How far a request's timestamp may be from server time, either side. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

/** What a request without a body signs in place of the body (version 1). `""` is accepted too. */
export const EMPTY_BODY = "{}";

/** The signature schemes a request may select with `x-signature-version`. */
export type SignatureVersion = 1 | 2;

/**
 * Version 1, the specification's signature: lowercase hex HMAC-SHA256, keyed with the secret
 * key, over the body (exact bytes) immediately followed by the decimal timestamp. This is the
 * function the server verifies against; clients (and the tests) sign with it too.
 */
export function sign(secretKey: string, body: string | Uint8Array, timestamp: string | number): string {
  return createHmac("sha256", secretKey).update(body).update(String(timestamp)).digest("hex");
}

/** What a version 2 signature covers: the whole request, not only its body. */
export interface RequestToSign {
  method: string;
  /** The request target as sent: path and query string (`/api/v1/external/account/list?page=2`). */
  url: string;
  timestamp: string | number;
  /** The `Idempotency-Key` header, when the request carries one. */
  idempotencyKey?: string | undefined;
  /** The exact body bytes; absent or empty for a request without a body. */
  body?: string | Uint8Array | undefined;
}

export const V2_ALGORITHM = "VAS2-HMAC-SHA256";

/** RFC 3986 encoding: everything but the unreserved characters A-Z a-z 0-9 - . _ ~ is %XX (upper case). */
function strictEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Percent-decodes, or undefined when the text is not valid percent-encoded UTF-8. */
function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The canonical form of a request target, so that equivalent encodings sign the same: each path
 * segment decoded and re-encoded strictly; query parameters decoded as the server reads them
 * (`+` is a space), re-encoded strictly, sorted by name then value, joined with `&`. Undefined
 * when the target cannot be decoded (such a request cannot be verified).
 */
export function canonicalTarget(url: string): { path: string; query: string } | undefined {
  const mark = url.indexOf("?");
  const rawPath = mark < 0 ? url : url.slice(0, mark);
  const rawQuery = mark < 0 ? "" : url.slice(mark + 1);
  const segments: string[] = [];
  for (const segment of rawPath.split("/")) {
    const decoded = decode(segment);
    if (decoded === undefined) return undefined;
    segments.push(strictEncode(decoded));
  }
  const pairs: Array<[string, string]> = [];
  for (const part of rawQuery.split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    const name = decode((equals < 0 ? part : part.slice(0, equals)).replaceAll("+", " "));
    const value = decode((equals < 0 ? "" : part.slice(equals + 1)).replaceAll("+", " "));
    if (name === undefined || value === undefined) return undefined;
    pairs.push([strictEncode(name), strictEncode(value)]);
  }
  pairs.sort(([an, av], [bn, bv]) => (an === bn ? compare(av, bv) : compare(an, bn)));
  return { path: segments.join("/"), query: pairs.map(([n, v]) => `${n}=${v}`).join("&") };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The string a version 2 signature is computed over, one field a line:
 * algorithm, timestamp, method, canonical path, canonical query, Idempotency-Key (or empty),
 * and the lowercase hex SHA-256 of the body bytes.
 */
export function canonicalRequest(request: RequestToSign): string | undefined {
  const target = canonicalTarget(request.url);
  if (!target) return undefined;
  const bodyHash = createHash("sha256")
    .update(request.body ?? "")
    .digest("hex");
  return [
    V2_ALGORITHM,
    String(request.timestamp),
    request.method.toUpperCase(),
    target.path,
    target.query,
    request.idempotencyKey ?? "",
    bodyHash,
  ].join("\n");
}

/**
 * Version 2: lowercase hex HMAC-SHA256, keyed with the secret key, over canonicalRequest().
 * Binds the method, the path and query, the Idempotency-Key, the body and the timestamp.
 */
export function signRequestV2(secretKey: string, request: RequestToSign): string {
  const canonical = canonicalRequest(request);
  if (canonical === undefined)
    throw new Error(`cannot sign a request target that does not decode: ${request.url}`);
  return createHmac("sha256", secretKey).update(canonical).digest("hex");
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * The canonical form of a signature header: 64 hex digits, lower-cased. Anything else
 * (another length, other characters, anything around the digits) is undefined: it can
 * never match, so it never reaches a comparison or a replay record.
 */
export function canonicalSignature(header: string): string | undefined {
  return HEX_SHA256.test(header) ? header.toLowerCase() : undefined;
}

/**
 * True when `signature` (canonical lowercase hex) equals the HMAC of any candidate message.
 * Each comparison is constant-time, so timing says nothing about which part of a signature was
 * right. Candidates are computed lazily and the first match ends the search: which accepted
 * form a caller signed is no secret, and the usual request costs one HMAC, not one per form.
 */
export function matchesAny(
  secretKey: string,
  candidates: Iterable<ReadonlyArray<string | Uint8Array>>,
  signature: string,
): boolean {
  const given = Buffer.from(signature, "hex");
  for (const parts of candidates) {
    const hmac = createHmac("sha256", secretKey);
    for (const part of parts) hmac.update(part);
    if (timingSafeEqual(hmac.digest(), given)) return true;
  }
  return false;
}

/**
 * True when `signature` (hex, either case, nothing around it) is the version 1 signature of any
 * candidate body with this timestamp.
 */
export function verifySignature(
  secretKey: string,
  candidateBodies: Iterable<string | Uint8Array>,
  timestamp: string,
  signature: string,
): boolean {
  const canonical = canonicalSignature(signature);
  if (canonical === undefined) return false;
  return matchesAny(secretKey, withTimestamp(candidateBodies, timestamp), canonical);
}

function* withTimestamp(bodies: Iterable<string | Uint8Array>, timestamp: string) {
  for (const body of bodies) yield [body, timestamp];
}

/** True when `signature` is the version 2 signature of this request. */
export function verifySignatureV2(secretKey: string, request: RequestToSign, signature: string): boolean {
  const canonical = canonicalSignature(signature);
  const message = canonicalRequest(request);
  if (canonical === undefined || message === undefined) return false;
  return matchesAny(secretKey, [[message]], canonical);
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
