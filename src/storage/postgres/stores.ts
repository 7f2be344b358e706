import type { PostgresStorage } from "../database.js";
import { payoutLedger } from "../payout-writes.js";
import type { Stores } from "../stores.js";
import { eachAlone } from "../transaction-batches.js";
import { postgresAccountWrites } from "./account-writes.js";
import { postgresDeliveries } from "./deliveries.js";
import { postgresLedgerWrites } from "./ledger-writes.js";
import { postgresRequestRecordClaims } from "./request-records.js";
import { postgresRowLocks } from "./row-locks.js";
import { postgresTransferWrites } from "./transfer-writes.js";

/** The hot path's writes on PostgreSQL: statements on the pool, one round trip where they can be. */
export const postgresStores = (storage: PostgresStorage): Stores => {
  const deliveries = postgresDeliveries;
  return {
    accounts: postgresAccountWrites(storage),
    requestRecords: postgresRequestRecordClaims(storage),
    deliveries,
    ledger: {
      ...postgresTransferWrites(storage),
      ...payoutLedger(storage, postgresLedgerWrites, postgresRowLocks, deliveries),
    },
    smallTransactions: eachAlone(storage),
  };
};
