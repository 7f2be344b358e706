import type { AccountWrites } from "../core/account-writes.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { RequestRecordClaims } from "../core/request-record-claims.js";
import type { SmallTransactions } from "../core/small-transactions.js";
import type { Ledger } from "../ledger/ledger-port.js";
import type { Executor } from "./executor.js";

/**
 * The hot path's writes, one implementation per dialect (sqlite/stores.ts, postgres/stores.ts),
 * chosen once in compose/: no call site asks which database it runs on. Cold paths go through
 * the query builder (storage.db), which speaks both, given what differs (`deliveries`).
 */
export interface Stores {
  accounts: AccountWrites;
  requestRecords: RequestRecordClaims;
  /** What chaining and claiming webhook deliveries needs of the dialect. */
  deliveries: DeliveryDialect<Executor>;
  /** Small cold-path transactions that need not wait for each other (delivery outcomes). */
  smallTransactions: SmallTransactions<Executor>;
  /**
   * The ledger's one port (ledger/ledger-port.ts): a transfer's ingestion, and money out's
   * transaction, each writing its posting whole.
   */
  ledger: Ledger<Executor>;
}
