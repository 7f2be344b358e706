import type { KeyCredential } from "../core/key-credential.js";
import {
  businessNotVerified,
  invalidApiKey,
  invalidSignature,
  invalidSignatureVersion,
  invalidTimestamp,
  missingHeader,
  signatureVersionRequired,
  timestampExpired,
} from "../errors.js";
import { recordKeyUse } from "../storage/api-key-repository.js";
import { CREDENTIALS_EPOCH } from "../storage/counter-repository.js";
import type { Executor } from "../storage/executor.js";
import { hashApiKey } from "./api-key-hash.js";
import type { CredentialReads } from "./credential-reads.js";
import {
  canonicalSignature,
  EMPTY_BODY,
  isFresh,
  parseTimestamp,
  type SignatureVersion,
  verifySignature,
  verifySignatureV2,
} from "./signature.js";

/** A hint when a stale timestamp would be fresh read as seconds: the commonest mistake (Unix time in seconds). */
function secondsHint(timestamp: number, now: number): string | undefined {
  return isFresh(timestamp * 1000, now)
    ? "x-timestamp looks like Unix time in seconds: send milliseconds (Date.now() in JavaScript, time.time() * 1000 in Python)"
    : undefined;
}

/** The authenticated business behind a request. */
export interface Caller {
  businessId: string;
  businessName: string;
  keyId: string;
  /**
   * The signature that was verified, in its one canonical form (64 lowercase hex digits):
   * what replay protection keys on, whatever spelling of it the request carried.
   */
  signature: string;
  signatureVersion: SignatureVersion;
  /** The business was `completed` as of this time at the latest (its record lags by at most EPOCH_CHECK_MS). */
  verifiedAsOf: number;
}

/** The request headers as received (Node lower-cases header names). */
export type SigningHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** What a signature may cover, taken from the request as received. */
export interface SignedContent {
  method: string;
  /** The request target as received: path and query string. */
  url: string;
  headers: SigningHeaders;
  /**
   * The body as received, or undefined when there was none: its exact bytes (what version 2
   * signs), and the JSON object they parsed to, if they did (version 1 may sign its compact form).
   */
  body: { raw: Uint8Array; value: Record<string, unknown> | undefined } | undefined;
}

/** What a request without a body may be signed over (version 1): `{}` (documented) or the empty string. */
const NO_BODY_FORMS = [EMPTY_BODY, ""];

/**
 * Version 1: every form of the body a signature may cover, most likely first, computed only as
 * far as the check needs: the exact bytes, then the parsed object re-serialised compactly (for
 * HTTP libraries that reformat JSON), when that differs.
 */
function* signedForms(body: SignedContent["body"]): Generator<string | Uint8Array> {
  if (!body) {
    yield* NO_BODY_FORMS;
    return;
  }
  yield body.raw;
  if (body.value === undefined) return;
  const compact = JSON.stringify(body.value);
  if (compact !== Buffer.from(body.raw.buffer, body.raw.byteOffset, body.raw.byteLength).toString("utf8"))
    yield compact;
}

const MAX_CACHED_KEYS = 10_000;

/**
 * How often a process that serves keys from its cache re-reads the credentials epoch: the bound
 * on how long a key or business change made by another process (or the CLI) goes unseen.
 */
export const EPOCH_CHECK_MS = 500;

const REQUIRED_HEADERS = ["x-api-key", "x-signature", "x-timestamp"] as const;

// Only HTTP's own optional whitespace (space and tab) is stripped from a header value: a
// JavaScript trim() would also strip U+00A0 and other spaces, and two spellings of one
// signature must never count as two requests.
const OWS = /^[ \t]+|[ \t]+$/g;

function text(headers: SigningHeaders, name: string): string | undefined {
  const value = headers[name];
  // A repeated header is ambiguous: treat it as malformed rather than pick one.
  return (Array.isArray(value) ? value.join(",") : value)?.replace(OWS, "");
}

function required(headers: SigningHeaders, name: (typeof REQUIRED_HEADERS)[number]): string {
  const value = text(headers, name);
  if (value === undefined || value === "") throw missingHeader(name);
  return value;
}

function signatureVersion(headers: SigningHeaders): SignatureVersion {
  const value = text(headers, "x-signature-version");
  if (value === undefined || value === "1") return 1;
  if (value === "2") return 2;
  throw invalidSignatureVersion();
}

export interface AuthenticatorOptions {
  /** Where a key's last use is written. */
  db: Executor;
  /** The key lookup and the credentials epoch (storage's hot reads, on statements prepared once). */
  reads: CredentialReads;
  /**
   * Opens a key's stored secret (businesses/api-keys.ts's `secretKeyOpener`): run when a key is
   * read from the database, not on a cached key.
   */
  openSecret: (credential: KeyCredential) => string;
  now?: () => number;
  /**
   * How long a key's record (status, business status, opened secret) may be reused without
   * reading it again; changes still apply within EPOCH_CHECK_MS. 0 reads it on every request.
   */
  cacheTtlMs?: number;
}

/**
 * Checks a request's credentials in the order of the spec's table: headers present, key known
 * and active, business verified, timestamp fresh, signature valid. Throws the AppError of the
 * first failed check. Nothing about the body is computed before the signature check.
 */
export class Authenticator {
  private readonly cache = new Map<string, { credential: KeyCredential; secretKey: string; until: number }>();
  /** Per key, the minute its last use was recorded in (api_keys.last_used_at). */
  private readonly usedInMinute = new Map<string, number>();
  private epoch: number | undefined;
  private epochCheckedAt = Number.NEGATIVE_INFINITY;
  private epochCheck: Promise<void> | undefined;

  private readonly db: Executor;
  private readonly reads: CredentialReads;
  private readonly openSecret: (credential: KeyCredential) => string;
  private readonly now: () => number;
  private readonly cacheTtlMs: number;

  constructor(options: AuthenticatorOptions) {
    this.db = options.db;
    this.reads = options.reads;
    this.openSecret = options.openSecret;
    this.now = options.now ?? Date.now;
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
  }

  /** Forgets every cached key: a change was made by this process (the next requests read afresh). */
  invalidate(): void {
    this.cache.clear();
  }

  /**
   * At most every EPOCH_CHECK_MS, one cheap read of the credentials epoch (concurrent requests
   * share it); when another process changed a key or a business, the cache is dropped.
   */
  private async revalidate(now: number): Promise<void> {
    if (now - this.epochCheckedAt < EPOCH_CHECK_MS) return;
    this.epochCheck ??= this.reads
      .counter(CREDENTIALS_EPOCH)
      .then((epoch) => {
        if (epoch !== this.epoch) this.cache.clear();
        this.epoch = epoch;
        this.epochCheckedAt = now;
      })
      .finally(() => {
        this.epochCheck = undefined;
      });
    await this.epochCheck;
  }

  /** The key's record and opened secret: from the cache while fresh and still current, else from the database. */
  private async lookup(
    keyHash: string,
  ): Promise<{ credential: KeyCredential; secretKey: string } | undefined> {
    const now = this.now();
    if (this.cacheTtlMs > 0) await this.revalidate(now);
    const cached = this.cache.get(keyHash);
    if (cached && cached.until > now) return cached;
    const credential = await this.reads.credential(keyHash);
    if (!credential) return undefined; // unknown keys are not remembered: no memory for random guesses
    const entry = {
      credential,
      secretKey: this.openSecret(credential),
      until: now + this.cacheTtlMs,
    };
    if (this.cacheTtlMs > 0) {
      this.cache.delete(keyHash);
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(keyHash, entry);
    }
    return entry;
  }

  /**
   * Notes that the key authenticated a request: written at most once a minute per key (and
   * process), in its own statement, never awaited by the request. A write that fails only
   * leaves the time a minute older.
   */
  private recordUse(keyId: string): void {
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    if (this.usedInMinute.get(keyId) === minute) return;
    if (this.usedInMinute.size >= MAX_CACHED_KEYS) this.usedInMinute.clear();
    this.usedInMinute.set(keyId, minute);
    recordKeyUse(this.db, keyId, new Date(minute * 60_000).toISOString()).catch(() => {});
  }

  async authenticate(request: SignedContent): Promise<Caller> {
    const { headers } = request;
    const [apiKey, signatureText, timestampText] = REQUIRED_HEADERS.map((name) =>
      required(headers, name),
    ) as [string, string, string];
    const found = await this.lookup(hashApiKey(apiKey));
    if (found?.credential.keyStatus !== "active") throw invalidApiKey();
    const { credential, secretKey } = found;
    if (credential.verificationStatus !== "completed") throw businessNotVerified();
    const timestamp = parseTimestamp(timestampText);
    if (timestamp === undefined) throw invalidTimestamp();
    if (!isFresh(timestamp, this.now())) throw timestampExpired(secondsHint(timestamp, this.now()));
    const version = signatureVersion(headers);
    if (version < credential.minSignatureVersion)
      throw signatureVersionRequired(credential.minSignatureVersion);
    const signature = canonicalSignature(signatureText);
    if (signature === undefined) throw invalidSignature();
    const valid =
      version === 1
        ? verifySignature(secretKey, signedForms(request.body), timestampText, signature)
        : verifySignatureV2(
            secretKey,
            {
              method: request.method,
              url: request.url,
              timestamp: timestampText,
              idempotencyKey: text(headers, "idempotency-key"),
              body: request.body?.raw,
            },
            signature,
          );
    if (!valid) throw invalidSignature();
    this.recordUse(credential.keyId);
    return {
      businessId: credential.businessId,
      businessName: credential.businessName,
      keyId: credential.keyId,
      signature,
      signatureVersion: version,
      verifiedAsOf: this.now() - EPOCH_CHECK_MS,
    };
  }
}
