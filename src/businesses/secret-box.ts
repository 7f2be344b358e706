import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Short public identifier of a master key, stored beside each ciphertext so rotation knows which key sealed it. */
export function masterKeyId(key: Buffer): string {
  return createHash("sha256").update("vas-master-key-id").update(key).digest("hex").slice(0, 12);
}

export class SecretBoxError extends Error {
  override readonly name = "SecretBoxError";
}

/**
 * AES-256-GCM under the master key. Each ciphertext is bound to its context (for example the
 * API-key row id) as additional authenticated data, so a ciphertext copied to another row fails.
 * Format: `v1.<key id>.<iv b64url>.<tag b64url>.<ciphertext b64url>`.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentId: string;

  /** `current` seals; `previous` keys still open (used while rotating the master key). */
  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== 32) throw new SecretBoxError("master key must be 32 bytes");
      this.keys.set(masterKeyId(key), key);
    }
    this.currentId = masterKeyId(current);
  }

  seal(plaintext: string, context: string): string {
    const key = this.keys.get(this.currentId) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [
      VERSION,
      this.currentId,
      iv.toString("base64url"),
      cipher.getAuthTag().toString("base64url"),
      body.toString("base64url"),
    ].join(".");
  }

  open(sealed: string, context: string): string {
    const parts = sealed.split(".");
    const [version, keyId, iv, tag, body] = parts;
    if (parts.length !== 5 || version !== VERSION || !keyId || !iv || !tag || body === undefined) {
      throw new SecretBoxError("malformed ciphertext");
    }
    const key = this.keys.get(keyId);
    if (!key)
      throw new SecretBoxError(`ciphertext was sealed with master key ${keyId}, which is not configured`);
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      throw new SecretBoxError("ciphertext failed authentication (wrong key or wrong context)");
    }
  }

  /** True when the ciphertext is sealed by the current master key (nothing to re-encrypt). */
  isCurrent(sealed: string): boolean {
    return sealed.split(".")[1] === this.currentId;
  }
}
