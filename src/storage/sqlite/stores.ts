import type { SqliteStorage } from "../database.js";
import { payoutLedger } from "../payout-writes.js";
import type { Stores } from "../stores.js";
import { TransactionBatches } from "../transaction-batches.js";
import { sqliteAccountWrites } from "./account-writes.js";
import { sqliteDeliveries } from "./deliveries.js";
import { sqliteLedgerWrites } from "./ledger-writes.js";
import { sqliteRequestRecordClaims } from "./request-records.js";
import { sqliteRowLocks } from "./row-locks.js";
import { sqliteTransferWrites } from "./transfer-writes.js";

/** The hot path's writes on SQLite: synchronous writes in the group commit. */
export const sqliteStores = (storage: SqliteStorage): Stores => {
  const deliveries = sqliteDeliveries(storage);
  return {
    accounts: sqliteAccountWrites(storage),
    requestRecords: sqliteRequestRecordClaims(storage),
    deliveries,
    ledger: {
      ...sqliteTransferWrites(storage),
      ...payoutLedger(storage, sqliteLedgerWrites, sqliteRowLocks, deliveries),
    },
    smallTransactions: new TransactionBatches(storage),
  };
};
