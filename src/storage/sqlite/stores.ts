import type { SqliteStorage } from "../database.js";
import type { Stores } from "../stores.js";
import { TransactionBatches } from "../transaction-batches.js";
import { sqliteAccountWrites } from "./account-writes.js";
import { sqliteDeliveries } from "./deliveries.js";
import { sqliteLedgerWrites } from "./ledger-writes.js";
import { sqliteRequestRecordClaims } from "./request-records.js";
import { sqliteRowLocks } from "./row-locks.js";
import { sqliteTransferWrites } from "./transfer-writes.js";

/** The hot path's writes on SQLite: synchronous writes in the group commit. */
export const sqliteStores = (storage: SqliteStorage): Stores => ({
  accounts: sqliteAccountWrites(storage),
  transfers: sqliteTransferWrites(storage),
  requestRecords: sqliteRequestRecordClaims(storage),
  deliveries: sqliteDeliveries(storage),
  rowLocks: sqliteRowLocks,
  ledger: sqliteLedgerWrites,
  smallTransactions: new TransactionBatches(storage),
});
