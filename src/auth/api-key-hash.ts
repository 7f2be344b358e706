import { createHash } from "node:crypto";

/**
 * What is stored in place of the API key. The key is random and long, so an unsalted hash
 * cannot be reversed, and it can be looked up directly. Authentication's, since it hashes every
 * request's key; businesses hashes a new key with it.
 */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}
