import { randomBytes } from "node:crypto";
import { hashApiKey } from "../auth/api-key-hash.js";
import { API_KEY_STATUSES, type ApiKeyStatus } from "../core/business-states.js";
import { AppError, ErrorCode } from "../errors.js";
import { findApiKeyByHash, findApiKeyById, findApiKeysByPrefix } from "../storage/api-key-repository.js";
import type { Executor } from "../storage/executor.js";
import type { SecretBox } from "./secret-box.js";

/** How every API key starts; a secret key starts differently. */
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

export function displayPrefix(apiKey: string): string {
  return apiKey.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** The additional authenticated data that binds a sealed secret key to its api_keys row. */
export const secretContext = (keyId: string) => `api_keys:${keyId}`;

/** Opens a key's sealed secret, as authentication reads a key (auth/authenticator.ts's `openSecret`). */
export const secretKeyOpener =
  (box: SecretBox) => (credential: { keyId: string; secretCiphertext: string }) =>
    box.open(credential.secretCiphertext, secretContext(credential.keyId));

export interface IssuedKeyPair {
  keyId: string;
  apiKey: string;
  secretKey: string;
}

export interface ApiKeySummary {
  keyId: string;
  prefix: string;
  status: ApiKeyStatus;
  /** The oldest signature version the key accepts (1, or 2 when version 2 is required). */
  minSignatureVersion: number;
  createdAt: string;
  updatedAt: string;
  /** The minute the key last authenticated a request (null: never). */
  lastUsedAt: string | null;
}

/** A key as the domain reads it (storage's api-key-repository.ts selects it): never its hash or its secret. */
export interface ApiKeyRecord {
  id: string;
  businessId: string;
  /** The first characters of the API key, for display. */
  keyPrefix: string;
  status: ApiKeyStatus;
  minSignatureVersion: number;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
}

/**
 * A new key, told to storage with the SHA-256 of the API key (never the key itself) and its
 * secret sealed by the master key, bound to the key's id; its version and last use are defaults.
 */
export type NewApiKey = Omit<ApiKeyRecord, "minSignatureVersion" | "lastUsedAt"> & {
  keyHash: string;
  secretCiphertext: string;
};

const notFound = (what: string) => new AppError(ErrorCode.NOT_FOUND, 404, what);
const invalid = (message: string) => new AppError(ErrorCode.VALIDATION_FAILED, 400, message);

/** How a key may be named: its id, the display prefix `key list` shows, or the whole API key. */
export type KeyReference =
  | { kind: "id"; keyId: string }
  | { kind: "prefix"; prefix: string }
  | { kind: "apiKey"; apiKey: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How every API key starts (see generateKeyPair); a secret key starts differently. */
const API_KEY_START = API_KEY_PREFIX;
/** Keys listed when a prefix is ambiguous. */
const AMBIGUOUS_LISTED = 10;

export const isUuid = (text: string) => UUID.test(text);

/**
 * Tells the three ways of naming a key apart without a database: a UUID is an id, `vak_` and 8
 * more characters a display prefix, any other `vak_...` a whole API key. Anything else (a
 * secret key, a typo) is a 400 that does not echo the text, which may be a secret.
 */
export function parseKeyReference(text: string): KeyReference {
  if (isUuid(text)) return { kind: "id", keyId: text.toLowerCase() };
  if (text.startsWith(API_KEY_START)) {
    return text.length === DISPLAY_PREFIX_LENGTH
      ? { kind: "prefix", prefix: text }
      : { kind: "apiKey", apiKey: text };
  }
  throw invalid(
    `expected a key id (UUID), a key prefix (${API_KEY_START} and ${DISPLAY_PREFIX_LENGTH - API_KEY_START.length} ` +
      `characters, as key list shows) or a whole API key (${API_KEY_START}...)` +
      (text.startsWith("vsk_") ? "; that is a secret key" : ""),
  );
}

/** A key as listed: never its secret. */
export const apiKeySummary = (key: ApiKeyRecord): ApiKeySummary => ({
  keyId: key.id,
  prefix: key.keyPrefix,
  status: key.status,
  minSignatureVersion: key.minSignatureVersion,
  createdAt: key.createdAt,
  updatedAt: key.updatedAt,
  lastUsedAt: key.lastUsedAt,
});

export function isApiKeyStatus(value: string): value is ApiKeyStatus {
  return (API_KEY_STATUSES as readonly string[]).includes(value);
}

/**
 * The key named by its id, its display prefix or the whole API key (see parseKeyReference); a
 * prefix two keys share is refused (409) with their ids, never resolved to one of them.
 */
export async function findKey(db: Executor, text: string): Promise<ApiKeyRecord> {
  const reference = parseKeyReference(text);
  switch (reference.kind) {
    case "id": {
      const row = await findApiKeyById(db, reference.keyId);
      if (!row) throw notFound(`no API key with id ${reference.keyId}`);
      return row;
    }
    case "apiKey": {
      const row = await findApiKeyByHash(db, hashApiKey(reference.apiKey));
      if (!row) throw notFound("no such API key");
      return row;
    }
    case "prefix": {
      const rows = await findApiKeysByPrefix(db, reference.prefix, AMBIGUOUS_LISTED);
      const [row, ...others] = rows;
      if (!row) throw notFound(`no API key with prefix ${reference.prefix}`);
      if (others.length > 0) {
        const listed = rows.map((r) => `${r.id} (business ${r.businessId})`).join(", ");
        throw new AppError(
          ErrorCode.CONFLICT,
          409,
          `the prefix ${reference.prefix} is ambiguous: ${rows.length === AMBIGUOUS_LISTED ? "at least " : ""}` +
            `${rows.length} keys share it: ${listed}. Name the key by its id or the whole API key`,
        );
      }
      return row;
    }
  }
}
