import { loadServiceKey, ServiceKey } from "../src/businesses/service-keys.js";
import type { Services } from "../src/compose/services.js";
import { nubanFromSerial, SERIAL_SPACE } from "../src/providers/nuban.js";
import { SerialPermutation } from "../src/providers/serial-permutation.js";
import { advanceCounter } from "../src/storage/counter-repository.js";
import { writeTransaction } from "../src/storage/transactions.js";
import { SERIAL_COUNTER } from "../src/storage/virtual-bank-store.js";

const CHUNK = 500;
const PER_TRANSACTION = 50_000;

/**
 * Gives a business `count` accounts directly through storage (no HTTP), numbered the way the
 * Virtual Bank numbers them (serials reserved from its counter, through its permutation), so
 * later issues never collide. Creation times are one millisecond apart, oldest first.
 */
export async function seedAccounts(services: Services, businessId: string, count: number): Promise<void> {
  const db = services.storage.db;
  const permutation = new SerialPermutation(
    await loadServiceKey(db, services.box, ServiceKey.virtualBankPermutation),
    SERIAL_SPACE,
  );
  const end = await advanceCounter(db, SERIAL_COUNTER, count);
  const firstSerial = end - count;
  const base = Date.now() - count - 60_000;
  for (let done = 0; done < count; done += PER_TRANSACTION) {
    const upTo = Math.min(count, done + PER_TRANSACTION);
    await writeTransaction(services.storage, async (trx) => {
      for (let start = done; start < upTo; start += CHUNK) {
        const rows = [];
        for (let i = start; i < Math.min(upTo, start + CHUNK); i++) {
          const at = new Date(base + i).toISOString();
          rows.push({
            id: `${businessId.slice(0, 8)}-${i}`,
            business_id: businessId,
            ordinal: i + 1,
            kind: i % 4 === 3 ? ("temporary" as const) : ("permanent" as const),
            account_number: nubanFromSerial("999240", permutation.apply(firstSerial + i)),
            account_name: `Bench Ltd/Customer ${i}`,
            customer_name: `Customer ${i}`,
            email: `customer${i}@bench.example.com`,
            identity_type: "bvn" as const,
            identity_fingerprint: "0".repeat(64),
            identity_last4: "0000",
            version: 1,
            duration_minutes: i % 4 === 3 ? 40 : null,
            expires_at: i % 4 === 3 ? new Date(base + i + 2_400_000).toISOString() : null,
            created_at: at,
            updated_at: at,
          });
        }
        await trx.insertInto("accounts").values(rows).execute();
      }
    });
  }
  await db.updateTable("businesses").set({ account_count: count }).where("id", "=", businessId).execute();
}
