import type { ApiKeyStatus } from "../core/business-states.js";
import type { Executor } from "./executor.js";

// A key as the domain reads it, in its names (the columns aliased): never its hash or its secret.
const KEY = [
  "id",
  "business_id as businessId",
  "key_prefix as keyPrefix",
  "status",
  "min_signature_version as minSignatureVersion",
  "created_at as createdAt",
  "updated_at as updatedAt",
  "last_used_at as lastUsedAt",
] as const;

type ApiKey = NonNullable<Awaited<ReturnType<typeof findApiKeyById>>>;

/**
 * A new key given in the domain's names (businesses/api-keys.ts's NewApiKey fits it): as read,
 * with its hash and its sealed secret; its signature version and last use are the columns' defaults.
 */
export async function insertApiKey(
  db: Executor,
  key: Omit<ApiKey, "minSignatureVersion" | "lastUsedAt"> & { keyHash: string; secretCiphertext: string },
): Promise<void> {
  await db
    .insertInto("api_keys")
    .values({
      id: key.id,
      business_id: key.businessId,
      key_hash: key.keyHash,
      key_prefix: key.keyPrefix,
      secret_ciphertext: key.secretCiphertext,
      status: key.status,
      created_at: key.createdAt,
      updated_at: key.updatedAt,
    })
    .execute();
}

export function findApiKeyByHash(db: Executor, keyHash: string) {
  return db.selectFrom("api_keys").select(KEY).where("key_hash", "=", keyHash).executeTakeFirst();
}

export function findApiKeyById(db: Executor, keyId: string) {
  return db.selectFrom("api_keys").select(KEY).where("id", "=", keyId).executeTakeFirst();
}

/** Keys whose display prefix is `prefix`: normally one, but nothing makes prefixes unique. */
export function findApiKeysByPrefix(db: Executor, prefix: string, limit: number) {
  return db
    .selectFrom("api_keys")
    .select(KEY)
    .where("key_prefix", "=", prefix)
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit)
    .execute();
}

export function listApiKeys(db: Executor, businessId: string) {
  return db
    .selectFrom("api_keys")
    .select(KEY)
    .where("business_id", "=", businessId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/** Sets a key's status unless it is revoked (revocation is final). Returns whether a row changed. */
export async function updateApiKeyStatus(
  db: Executor,
  keyId: string,
  status: ApiKeyStatus,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("api_keys")
    .set({ status, updated_at: now })
    .where("id", "=", keyId)
    .where("status", "<>", "revoked")
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Sets the oldest signature version a key accepts. Returns whether the key exists. */
export async function updateMinSignatureVersion(
  db: Executor,
  keyId: string,
  version: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("api_keys")
    .set({ min_signature_version: version, updated_at: now })
    .where("id", "=", keyId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The key's payout addresses as stored (JSON), null for any; undefined when there is no such key. */
export async function payoutIpsOf(db: Executor, keyId: string): Promise<string | null | undefined> {
  const row = await db.selectFrom("api_keys").select("payout_ips").where("id", "=", keyId).executeTakeFirst();
  return row?.payout_ips;
}

/** Sets the key's payout addresses (JSON; null for any). Returns whether the key exists. */
export async function updatePayoutIps(
  db: Executor,
  keyId: string,
  payoutIps: string | null,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("api_keys")
    .set({ payout_ips: payoutIps, updated_at: now })
    .where("id", "=", keyId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The minute the key last authenticated a request; never moves back. */
export async function recordKeyUse(db: Executor, keyId: string, minute: string): Promise<void> {
  await db
    .updateTable("api_keys")
    .set({ last_used_at: minute })
    .where("id", "=", keyId)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", minute)]))
    .execute();
}

/** Every key's sealed secret, for re-sealing under a new master key. */
export function sealedKeySecrets(db: Executor): Promise<Array<{ id: string; sealed: string }>> {
  return db.selectFrom("api_keys").select(["id", "secret_ciphertext as sealed"]).execute();
}

/** Stores a key's secret sealed anew. */
export async function resealKeySecret(db: Executor, id: string, sealed: string): Promise<void> {
  await db.updateTable("api_keys").set({ secret_ciphertext: sealed }).where("id", "=", id).execute();
}
