import { resealKeySecret, sealedKeySecrets } from "../storage/api-key-repository.js";
import type { Storage } from "../storage/database.js";
import { allSettings, replaceSetting } from "../storage/settings-repository.js";
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
    /** Re-seals one stored value under the current key; `save` writes it back. */
    const reseal = async (sealed: string, context: string, save: (value: string) => Promise<unknown>) => {
      if (box.isCurrent(sealed)) {
        report.alreadyCurrent++;
        return;
      }
      await save(box.seal(box.open(sealed, context), context));
      report.resealed++;
    };
    for (const key of await sealedKeySecrets(trx)) {
      await reseal(key.sealed, secretContext(key.id), (value) => resealKeySecret(trx, key.id, value));
    }
    for (const setting of await allSettings(trx)) {
      await reseal(setting.value, settingContext(setting.name), (value) =>
        replaceSetting(trx, setting.name, value),
      );
    }
    return report;
  });
}
