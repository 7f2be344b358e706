import type { Storage } from "../storage/database.js";
import { writeTransaction } from "../storage/transactions.js";
import { secretContext } from "./api-keys.js";
import type { SecretBox } from "./secret-box.js";
import { settingContext } from "./service-keys.js";

/** How many sealed values were re-sealed, and how many already were under the current key. */
export interface RotationReport {
  resealed: number;
  alreadyCurrent: number;
}

/**
 * Re-seals every stored secret (API secret keys, service keys) under the box's current master
 * key. The box must still open the old ciphertexts (the old key given as a previous key), so
 * servers keep working throughout. One transaction: all or nothing.
 */
export function rotateMasterKey(storage: Storage, box: SecretBox): Promise<RotationReport> {
  return writeTransaction(storage, async (trx) => {
    const report: RotationReport = { resealed: 0, alreadyCurrent: 0 };
    const keys = await trx.selectFrom("api_keys").select(["id", "secret_ciphertext"]).execute();
    for (const key of keys) {
      if (box.isCurrent(key.secret_ciphertext)) {
        report.alreadyCurrent++;
        continue;
      }
      const context = secretContext(key.id);
      const resealed = box.seal(box.open(key.secret_ciphertext, context), context);
      await trx
        .updateTable("api_keys")
        .set({ secret_ciphertext: resealed })
        .where("id", "=", key.id)
        .execute();
      report.resealed++;
    }
    const settings = await trx.selectFrom("settings").select(["name", "value"]).execute();
    for (const setting of settings) {
      if (box.isCurrent(setting.value)) {
        report.alreadyCurrent++;
        continue;
      }
      const context = settingContext(setting.name);
      const resealed = box.seal(box.open(setting.value, context), context);
      await trx.updateTable("settings").set({ value: resealed }).where("name", "=", setting.name).execute();
      report.resealed++;
    }
    return report;
  });
}
