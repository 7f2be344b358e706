import { hashApiKey, secretContext } from "../businesses/api-keys.js";
import type { SecretBox } from "../businesses/secret-box.js";
import {
  businessNotVerified,
  invalidApiKey,
  invalidSignature,
  invalidTimestamp,
  missingHeader,
  timestampExpired,
} from "../errors.js";
import { findCredentialByKeyHash, type KeyCredential } from "../storage/api-key-repository.js";
import type { Executor } from "../storage/transactions.js";
import { isFresh, parseTimestamp, verifySignature } from "./signature.js";

/** The authenticated business behind a request. */
export interface Caller {
  businessId: string;
  businessName: string;
  keyId: string;
}

/** The three signing headers as received (Node lower-cases header names). */
export type SigningHeaders = Readonly<Record<string, string | string[] | undefined>>;

const MAX_CACHED_KEYS = 10_000;

const REQUIRED_HEADERS = ["x-api-key", "x-signature", "x-timestamp"] as const;

function header(headers: SigningHeaders, name: (typeof REQUIRED_HEADERS)[number]): string {
  const value = headers[name];
  // A repeated header is ambiguous: treat it as malformed rather than pick one.
  const text = Array.isArray(value) ? value.join(",") : value;
  if (text === undefined || text.trim() === "") throw missingHeader(name);
  return text.trim();
}

/**
 * Checks a request's credentials in the order of the spec's table: headers present, key known
 * and active, business verified, timestamp fresh, signature valid. Throws the AppError of the
 * first failed check.
 */
export class Authenticator {
  private readonly cache = new Map<string, { credential: KeyCredential; secretKey: string; until: number }>();

  /**
   * `cacheTtlMs`: how long a key's record (status, business status, opened secret) may be
   * reused without reading the database again: the bound on how stale a key or business status
   * change can be in a running process. 0 reads the database on every request.
   */
  constructor(
    private readonly db: Executor,
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
    private readonly cacheTtlMs = 0,
  ) {}

  /** The key's record and opened secret: from the cache while fresh, else from the database. */
  private async lookup(
    keyHash: string,
  ): Promise<{ credential: KeyCredential; secretKey: string } | undefined> {
    const now = this.now();
    const cached = this.cache.get(keyHash);
    if (cached && cached.until > now) return cached;
    const credential = await findCredentialByKeyHash(this.db, keyHash);
    if (!credential) return undefined; // unknown keys are not remembered: no memory for random guesses
    const entry = {
      credential,
      secretKey: this.box.open(credential.secretCiphertext, secretContext(credential.keyId)),
      until: now + this.cacheTtlMs,
    };
    if (this.cacheTtlMs > 0) {
      this.cache.delete(keyHash);
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(keyHash, entry);
    }
    return entry;
  }

  /** `signedBodies`: every form of the body a valid signature may cover (see docs/api.md). */
  async authenticate(
    headers: SigningHeaders,
    signedBodies: ReadonlyArray<string | Uint8Array>,
  ): Promise<Caller> {
    const [apiKey, signature, timestampText] = REQUIRED_HEADERS.map((name) => header(headers, name)) as [
      string,
      string,
      string,
    ];
    const found = await this.lookup(hashApiKey(apiKey));
    if (found?.credential.keyStatus !== "active") throw invalidApiKey();
    const { credential, secretKey } = found;
    if (credential.verificationStatus !== "completed") throw businessNotVerified();
    const timestamp = parseTimestamp(timestampText);
    if (timestamp === undefined) throw invalidTimestamp();
    if (!isFresh(timestamp, this.now())) throw timestampExpired();
    if (!verifySignature(secretKey, signedBodies, timestampText, signature)) throw invalidSignature();
    return {
      businessId: credential.businessId,
      businessName: credential.businessName,
      keyId: credential.keyId,
    };
  }
}
