import { randomBytes } from "node:crypto";
import type { Executor } from "../storage/executor.js";
import { getOrInsertSetting } from "../storage/settings-repository.js";
import type { SecretBox } from "./secret-box.js";

/** Service-wide keys, generated once per database and kept sealed by the master key. */
export const ServiceKey = {
  /** Keys the permutation that turns the Virtual Bank's counter into account serials. */
  virtualBankPermutation: "virtual_bank.permutation_key",
  /** Keys the fingerprints kept in place of BVNs and NINs. */
  identityFingerprint: "identity.fingerprint_key",
  /** Binds the dashboard's CSRF tokens to their session. */
  dashboardCsrf: "dashboard.csrf_key",
  /** Signs the dashboard's device cookies (OWASP's device-cookie lockout). */
  dashboardDevice: "dashboard.device_key",
  /** Keys the HMACs kept in place of recovery codes (second-factor.ts). */
  recoveryCodes: "users.recovery_code_key",
  /** Authenticates the ledger's checkpoints (ledger/checkpoint.ts). */
  ledgerCheckpoint: "ledger.checkpoint_key",
} as const;
export type ServiceKeyName = (typeof ServiceKey)[keyof typeof ServiceKey];

export const settingContext = (name: string) => `settings:${name}`;

/**
 * The named 32-byte key, created on first use. Every process sharing the database gets the
 * same key (the first writer wins), and it does not depend on the master key, so rotating the
 * master key re-seals it without changing it.
 */
export async function loadServiceKey(db: Executor, box: SecretBox, name: ServiceKeyName): Promise<Buffer> {
  const candidate = box.seal(randomBytes(32).toString("base64"), settingContext(name));
  const stored = await getOrInsertSetting(db, name, candidate, new Date().toISOString());
  return Buffer.from(box.open(stored, settingContext(name)), "base64");
}
