import type { AccountWrites } from "../core/account-writes.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { RequestRecordClaims } from "../core/request-record-claims.js";
import type { RowLocks } from "../core/row-locks.js";
import type { SmallTransactions } from "../core/small-transactions.js";
import type { LedgerWrites } from "../ledger/ledger-port.js";
import type { Executor } from "./executor.js";
import type { TransferWrites } from "./transfer-writes.js";

/**
 * The hot path's writes, one implementation per dialect (sqlite/stores.ts, postgres/stores.ts),
 * chosen once in compose/: no call site asks which database it runs on. Cold paths go through
 * the query builder (storage.db), which speaks both, given what differs (`deliveries`).
 */
export interface Stores {
  accounts: AccountWrites;
  transfers: TransferWrites;
  requestRecords: RequestRecordClaims;
  /** What chaining and claiming webhook deliveries needs of the dialect. */
  deliveries: DeliveryDialect<Executor>;
  /** How a cold-path write takes the rows it reads (a payout takes the business's row). */
  rowLocks: RowLocks;
  /** Small cold-path transactions that need not wait for each other (delivery outcomes). */
  smallTransactions: SmallTransactions<Executor>;
  /** The ledger's port for a cold-path transaction (payouts), on the statements transfers post with. */
  ledger: LedgerWrites<Executor>;
}
