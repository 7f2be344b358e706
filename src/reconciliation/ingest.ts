import type { CollectionService } from "../collections/collection-service.js";
import type { Transaction } from "../core/api-types.js";
import { ErrorCode, isAppError, TRANSFER_REFUSALS } from "../errors.js";
import type { TransactionRecord } from "../ledger/ledger-records.js";
import type { TransferNotification } from "../providers/transfer-notification.js";
import type { Storage } from "../storage/database.js";
import { noteRecovered } from "../storage/reconciliation-repository.js";
import type { CreditSide } from "./report.js";

// A credit the bank has and the ledger lacks, through the one ingestion path (acceptance rules,
// ledger, `payment.received`): what recovery, a requery and a day's report all do with one.

/** What ingesting a credit from the bank's statement did. */
export type Ingested =
  | { kind: "recovered"; transaction: Transaction }
  /** A notification recorded it first (a race with the bank's own retry): nothing more to do. */
  | { kind: "duplicate"; transaction: Transaction }
  /** The acceptance rules refused it (its code and message): the bank must return it. */
  | { kind: "refused"; code: string; reason: string }
  /** Its session id was recorded with other details: kept as a conflict. */
  | { kind: "conflict"; reason: string };

const REFUSALS = new Set<string>(TRANSFER_REFUSALS);

/**
 * Ingests a credit the ledger lacks; one recorded now is noted as recovered (`via` found it),
 * so that a day's report counts it as recovered rather than matched.
 */
export async function ingestCredit(
  deps: { collections: CollectionService; storage: Storage },
  credit: TransferNotification,
  via: "job" | "requery" | "report",
  now: () => string,
): Promise<Ingested> {
  let ingested: Ingested;
  try {
    const received = await deps.collections.receive(credit);
    ingested = { kind: received.duplicate ? "duplicate" : "recovered", transaction: received.transaction };
  } catch (error) {
    if (isAppError(error) && error.code === ErrorCode.TRANSFER_CONFLICT) {
      return { kind: "conflict", reason: error.message };
    }
    if (isAppError(error) && REFUSALS.has(error.code)) {
      return { kind: "refused", code: error.code, reason: error.message };
    }
    throw error;
  }
  if (ingested.kind === "recovered")
    await noteRecovery(deps.storage, credit.sessionId, ingested.transaction.id, via, now);
  return ingested;
}

/** Notes that a credit was found at the bank, not notified (once per session id). */
export const noteRecovery = (
  storage: Storage,
  sessionId: string,
  transactionId: string,
  via: "job" | "requery" | "report",
  now: () => string,
) =>
  noteRecovered(storage.db, {
    sessionId,
    transactionId,
    via,
    recoveredAt: now(),
  });

/** The bank's side of a credit. */
export const bankSide = (credit: TransferNotification): CreditSide => ({
  accountNumber: credit.accountNumber,
  amount: credit.amount,
  currency: credit.currency,
  paidAt: credit.paidAt,
});

/** The ledger's side of a credit. */
export const ledgerSide = (row: TransactionRecord): CreditSide => ({
  accountNumber: row.account_number,
  amount: Number(row.amount),
  currency: row.currency,
  paidAt: row.value_at,
});

/** Whether the bank's credit is the transaction recorded for its session id: same account, amount and currency. */
export const alike = (credit: TransferNotification, row: TransactionRecord) =>
  credit.accountNumber === row.account_number &&
  credit.amount === Number(row.amount) &&
  credit.currency === row.currency;
