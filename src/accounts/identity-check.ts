import { createHmac } from "node:crypto";
import { namesLookAlike } from "../core/name-match.js";
import { identityMismatch, isAppError, providerRejected, providerUnavailable } from "../errors.js";
import type { IdentityRegistry } from "../providers/account-provider.js";
import { isStorageUnavailable } from "../storage/errors.js";
import type { Identity } from "./validation.js";

// Issue 46: an identity number is the holder's when the bank's record of it is in the holder's
// name, by the rule the service uses wherever two names are compared (core/name-match.ts): in lower
// case, less accents and the words every name may carry, the two share at least two words (or the
// record's one word, when it has only one); or they are the same name, whatever its case and
// accents (one of no words, all symbols, has nothing else to compare). Asked of the bank before an account is opened and
// before an identity is added to one; the number itself is never stored or logged.

/**
 * The same name, whatever its case and accents: a match even when it has no words to compare
 * (a name of emoji or other symbols, which the display-name rules allow).
 */
const sameName = (a: string, b: string) => {
  const plain = (name: string) => name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().trim();
  return plain(a) === plain(b);
};

/** What an identity is called in messages. */
export const LABEL = { bvn: "BVN", nin: "NIN" } as const;

/** An identity number's keyed fingerprint: comparable, not reversible (the number is never stored). */
export const fingerprint = (key: Buffer, identity: Identity) =>
  createHmac("sha256", key).update(`${identity.type}:${identity.number}`).digest("hex");

/**
 * Refuses `identity` unless the bank's record of it is in `holderName`: 422 IDENTITY_MISMATCH when
 * the names differ, 400 PROVIDER_REJECTED when the bank has no record, 502 when it cannot answer.
 */
export async function checkIdentity(
  registry: IdentityRegistry,
  identity: Identity,
  holderName: string,
): Promise<void> {
  const label = LABEL[identity.type];
  let registered: string | undefined;
  try {
    registered = await registry.identityName({
      identityType: identity.type === "bvn" ? "personal" : "personal_nin",
      licenseNumber: identity.number,
      customerName: holderName,
    });
  } catch (error) {
    if (isAppError(error) || isStorageUnavailable(error)) throw error;
    throw providerUnavailable(error);
  }
  if (registered === undefined) {
    throw providerRejected(`${label} verification failed: no record found for this ${label}`);
  }
  if (!sameName(holderName, registered) && !namesLookAlike(holderName, registered)) {
    throw identityMismatch(
      `The ${label} is registered in another name than ${JSON.stringify(holderName)}: the names must share at least two words`,
    );
  }
}
