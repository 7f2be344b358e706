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
import { findCredentialByKeyHash } from "../storage/api-key-repository.js";
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
  constructor(
    private readonly db: Executor,
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

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
    const credential = await findCredentialByKeyHash(this.db, hashApiKey(apiKey));
    if (credential?.keyStatus !== "active") throw invalidApiKey();
    if (credential.verificationStatus !== "completed") throw businessNotVerified();
    const timestamp = parseTimestamp(timestampText);
    if (timestamp === undefined) throw invalidTimestamp();
    if (!isFresh(timestamp, this.now())) throw timestampExpired();
    const secretKey = this.box.open(credential.secretCiphertext, secretContext(credential.keyId));
    if (!verifySignature(secretKey, signedBodies, timestampText, signature)) throw invalidSignature();
    return {
      businessId: credential.businessId,
      businessName: credential.businessName,
      keyId: credential.keyId,
    };
  }
}
