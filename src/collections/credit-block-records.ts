import type { Actor } from "../core/actor.js";
import type { EventToWrite } from "../core/event-to-write.js";
import { validationFailed } from "../errors.js";
import { eventToWrite } from "../events/outbox.js";
import type { CreditBlockRecord, TransactionRecord } from "../ledger/ledger-records.js";
import type { Executor } from "../storage/executor.js";
import { insertActorAudit } from "../storage/user-repository.js";
import { SESSION_ID, TRANSACTION_ID } from "./validation.js";

// What an operator's block on a disputed credit (issue 46, item 7; credit-blocks.ts) is as people
// and systems read it: its view (the console, the dashboard, the events), its event, its audit
// entry, and how an operator names the credit.

/** A block as the console, the dashboard and the events show it. */
export interface CreditBlock {
  id: string;
  transactionId: string;
  accountNumber: string;
  sessionId: string;
  /** Kobo blocked. */
  amount: number;
  currency: "NGN";
  reason: string;
  state: CreditBlockRecord["state"];
  /** The refund that returns it (state `returned`), else null. */
  refundId: string | null;
  blockedAt: string;
  /** When it was released or returned, else null. */
  decidedAt: string | null;
}

/** What an operator asks: the credit (its id or its NIP session id), how much (all that is left when absent) and why. */
export interface BlockInput {
  credit: string;
  amount?: number;
  reason: string;
}

export const blockView = (
  record: CreditBlockRecord,
  credit: Pick<TransactionRecord, "account_number" | "session_id">,
): CreditBlock => ({
  id: record.id,
  transactionId: record.transaction_id,
  accountNumber: credit.account_number,
  sessionId: credit.session_id,
  amount: Number(record.amount),
  currency: "NGN",
  reason: record.reason,
  state: record.state,
  refundId: record.refund_id,
  blockedAt: record.created_at,
  decidedAt: record.decided_at,
});

/** The event a block's move makes, with the block as its data. */
export const blockEvent = (
  type: "payment.blocked" | "payment.released",
  record: CreditBlockRecord,
  credit: TransactionRecord,
): EventToWrite =>
  eventToWrite(
    {
      businessId: record.business_id,
      type,
      accountNumber: credit.account_number,
      data: blockView(record, credit),
    },
    record.decided_at ?? record.created_at,
  );

/** How an operator names a credit: its transaction id, else its session id (NIP's 30 digits, or the sandbox's). */
export function creditKey(credit: string): { id: string } | { sessionId: string } {
  if (TRANSACTION_ID.test(credit)) return { id: credit };
  if (SESSION_ID.test(credit)) return { sessionId: credit };
  throw validationFailed("Credit must be a transaction id (txn_...) or the credit's session id");
}

/**
 * The audit entry of a block's move (`credit.blocked`, `credit.released`, `credit.returned`),
 * written in the move's own transaction: no move without its entry, whichever front asked.
 */
export function audit(
  trx: Executor,
  actor: Actor,
  action: string,
  record: CreditBlockRecord,
  detail: Record<string, unknown> = {},
): Promise<void> {
  return insertActorAudit(trx, {
    actor,
    businessId: record.business_id,
    action,
    detail: {
      blockId: record.id,
      transactionId: record.transaction_id,
      amount: Number(record.amount),
      ...detail,
    },
    at: record.decided_at ?? record.created_at,
  });
}
