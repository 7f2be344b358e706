import { createHash, randomBytes } from "node:crypto";

const API_KEY_PREFIX = "vak_";
const SECRET_KEY_PREFIX = "vsk_";
/** How much of an API key is kept in clear, to recognise it in listings. */
export const DISPLAY_PREFIX_LENGTH = 12;

/** A new key pair: 192 random bits in the API key, 256 in the secret. */
export function generateKeyPair(): { apiKey: string; secretKey: string } {
  return {
    apiKey: API_KEY_PREFIX + randomBytes(24).toString("base64url"),
    secretKey: SECRET_KEY_PREFIX + randomBytes(32).toString("base64url"),
  };
}

/**
 * What is stored in place of the API key. The key is random and long, so an unsalted hash
 * cannot be reversed, and it can be looked up directly.
 */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

export function displayPrefix(apiKey: string): string {
  return apiKey.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** The additional authenticated data that binds a sealed secret key to its api_keys row. */
export const secretContext = (keyId: string) => `api_keys:${keyId}`;
