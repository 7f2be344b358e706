import { AccountService } from "./accounts/account-service.js";
import { Authenticator } from "./auth/authenticator.js";
import { BusinessService } from "./businesses/business-service.js";
import { SecretBox, SecretBoxError } from "./businesses/secret-box.js";
import { loadServiceKey, ServiceKey } from "./businesses/service-keys.js";
import type { DatabaseLocation } from "./config.js";
import { RequestRecords } from "./idempotency/request-records.js";
import type { AccountProvider } from "./providers/account-provider.js";
import { VirtualBank } from "./providers/virtual-bank.js";
import { openStorage, type Storage, type StorageOptions } from "./storage/database.js";
import { migrate } from "./storage/migrate.js";

export interface ServicesOptions {
  database: DatabaseLocation;
  storageOptions?: StorageOptions;
  masterKey: Buffer;
  /** Earlier master keys that still open secrets while they are being re-sealed. */
  previousMasterKeys?: readonly Buffer[];
  institutionCode: string;
  /** How long an in-flight POST holds its signature / Idempotency-Key (default 60 s). */
  requestLeaseMs?: number;
  /** How long the authenticator may reuse a key's record (default 0: every request reads it). */
  authCacheTtlMs?: number;
  /** Replaces the embedded Virtual Bank (tests pass fakes; later, HTTP adapters). */
  provider?: (defaults: { storage: Storage; permutationKey: Buffer }) => AccountProvider;
}

/** The domain services over one open, migrated database: shared by the server, the CLI and tests. */
export interface Services {
  storage: Storage;
  box: SecretBox;
  businesses: BusinessService;
  accounts: AccountService;
  authenticator: Authenticator;
  requestRecords: RequestRecords;
  /** Names of the migrations applied while opening. */
  migrated: string[];
  close(): Promise<void>;
}

export class MasterKeyMismatchError extends Error {
  constructor(cause: unknown) {
    super(
      "The master key cannot open the secrets stored in this database: it is not the key they were sealed with. " +
        "Set VAS_MASTER_KEY (or DATA_DIR) to the key this database was created with.",
      { cause },
    );
    this.name = "MasterKeyMismatchError";
  }
}

/** Opens and migrates the database, loads the service keys and wires the services. */
export async function openServices(options: ServicesOptions): Promise<Services> {
  const storage = openStorage(options.database, options.storageOptions);
  try {
    const migrated = await migrate(storage);
    const box = new SecretBox(options.masterKey, options.previousMasterKeys);
    let permutationKey: Buffer;
    let fingerprintKey: Buffer;
    try {
      permutationKey = await loadServiceKey(storage.db, box, ServiceKey.virtualBankPermutation);
      fingerprintKey = await loadServiceKey(storage.db, box, ServiceKey.identityFingerprint);
    } catch (error) {
      throw error instanceof SecretBoxError ? new MasterKeyMismatchError(error) : error;
    }
    const provider =
      options.provider?.({ storage, permutationKey }) ??
      new VirtualBank({ db: storage.db, institutionCode: options.institutionCode, permutationKey });
    return {
      storage,
      box,
      businesses: new BusinessService(storage, box),
      accounts: new AccountService({ storage, provider, fingerprintKey }),
      authenticator: new Authenticator(storage.db, box, Date.now, options.authCacheTtlMs ?? 0),
      requestRecords: new RequestRecords({ db: storage.db, leaseMs: options.requestLeaseMs ?? 60_000 }),
      migrated,
      close: () => storage.close(),
    };
  } catch (error) {
    await storage.close().catch(() => {});
    throw error;
  }
}
