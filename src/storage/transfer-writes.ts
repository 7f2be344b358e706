import { randomUUID } from "node:crypto";
import type { LedgerAccountKind, LedgerAccountToOpen } from "../ledger/kinds.js";
import type { AccountHead, ChainedEntry } from "../ledger/posting.js";
import type { AccountByNumber } from "./account-repository.js";
import type { ConflictInput } from "./conflict-repository.js";
import type { EventToWrite } from "./event-writes.js";
import type { AccountRow } from "./schema.js";
import type { TransactionRow } from "./transaction-repository.js";
import type { AnswerOptions, UnitOfWork } from "./unit-of-work.js";

/** What the domain posts a transfer onto, read under the locks: the fee, the ledger heads, the last transaction. */
export interface LedgerState {
  fee: { basisPoints: number; capKobo: number | null };
  heads: Map<LedgerAccountKind, AccountHead>;
  /** The business's newest transaction (undefined before its first). */
  last: Pick<TransactionRow, "ordinal" | "created_at"> | undefined;
}

/** A transfer posted by the domain: what storage writes, and the result to answer with. */
export interface TransferPosting<R> {
  transaction: TransactionRow;
  entries: readonly ChainedEntry[];
  /** The ledger accounts' heads after the entries. */
  heads: Iterable<AccountHead>;
  event: EventToWrite;
  /** The account's totals after this transfer (its row is held: nothing else moves them). */
  accountTotals: Pick<AccountRow, "total_received" | "transfer_count">;
  result: R;
}

/** A session id recorded before: the same transfer again (answer `duplicate`), or a conflict to keep. */
export type SeenBefore<R> = { duplicate: R } | { conflict: ConflictInput };

/**
 * The domain's decisions, made under storage's locks from what it read: synchronous and pure
 * (on SQLite they run inside the write itself). `post` throws a refusal (the acceptance rules),
 * which writes nothing.
 */
export interface TransferDecisions<R> {
  /** The session id was recorded before, as `existing`. */
  again(existing: TransactionRow): SeenBefore<R>;
  /** The ledger accounts a business has: opened, if it has none yet, before `post` reads them. */
  ledgerAccounts(businessId: string): readonly LedgerAccountToOpen[];
  /** A new session id: accept into the account `found` by its number (if any) and post it onto its ledger. */
  post(found: (AccountByNumber & { ledger: LedgerState }) | undefined): TransferPosting<R>;
}

/** What storage looks a notification up by, and when (a business's ledger accounts are created then). */
export interface TransferKeys {
  sessionId: string;
  accountNumber: string;
  now: string;
}

/** What ingesting did: answered (recorded now, or the first recording), or refused as a conflict, kept. */
export type TransferOutcome<R> = { result: R } | { conflict: ConflictInput };

/**
 * Records a bank notification, its ledger postings, balances and event in one write transaction
 * (issue 12's hot path), one implementation per dialect (sqlite/ and postgres/transfer-writes.ts),
 * chosen in compose/. Ingestions of one session id take turns, and so do transfers into one
 * account and one business's transfers. A conflict is kept, and commits without an answer.
 */
export interface TransferWrites {
  ingest<R>(
    transfer: TransferKeys,
    decide: TransferDecisions<R>,
    unit: UnitOfWork | undefined,
  ): Promise<TransferOutcome<R>>;
}

/** A unit of work answers with an outcome's result; a conflict stores no answer. */
export const OUTCOME_ANSWERS: AnswerOptions<TransferOutcome<unknown>> = {
  answers: (outcome) => "result" in outcome,
  answer: (outcome) => ("result" in outcome ? outcome.result : undefined),
};

/** A ledger account's head as both dialects read it (LEDGER_HEADS). */
export interface HeadRow {
  id: string;
  kind: LedgerAccountKind;
  balance: number;
  entry_count: number;
  last_hash: string;
}

export const headMap = (rows: readonly HeadRow[]) =>
  new Map<LedgerAccountKind, AccountHead>(
    rows.map((row) => [
      row.kind,
      {
        id: row.id,
        balance: Number(row.balance),
        entryCount: Number(row.entry_count),
        lastHash: row.last_hash,
      },
    ]),
  );

/**
 * A business's heads as a query builder's transaction takes them: read (locked, where the dialect
 * locks), and when fewer than `needed`, its missing ledger accounts opened and read again.
 */
export async function openedHeads(
  read: () => Promise<readonly HeadRow[]>,
  open: () => Promise<unknown>,
  needed: number,
) {
  const heads = await read();
  if (heads.length >= needed) return headMap(heads);
  await open();
  return headMap(await read());
}

/** The account found by number (FIND_ACCOUNT_BY_NUMBER), with its number's retirement and its business's fee. */
export type FoundRow = AccountRow & {
  number_retired_at: string | null;
  fee_basis_points: number;
  fee_cap_kobo: number | null;
};

export function destination(row: FoundRow | undefined) {
  if (!row) return undefined;
  const { number_retired_at, fee_basis_points, fee_cap_kobo, ...account } = row;
  return {
    account,
    retiredAt: number_retired_at,
    fee: {
      basisPoints: Number(fee_basis_points),
      capKobo: fee_cap_kobo === null ? null : Number(fee_cap_kobo),
    },
  };
}

/** A conflict's row, for RECORD_CONFLICT. */
export const conflictRow = (conflict: ConflictInput) => ({
  id: `cfl_${randomUUID().replaceAll("-", "")}`,
  session_id: conflict.sessionId,
  transaction_id: conflict.transactionId,
  business_id: conflict.businessId,
  account_number: conflict.accountNumber,
  amount: conflict.amount,
  currency: conflict.currency,
  now: conflict.seenAt,
});

export const TRANSACTION_COLUMNS = [
  "id",
  "business_id",
  "account_id",
  "account_number",
  "ordinal",
  "account_ordinal",
  "session_id",
  "amount",
  "fee",
  "net_amount",
  "currency",
  "balance_after",
  "payer_name",
  "payer_account_number",
  "payer_bank_name",
  "payer_bank_code",
  "narration",
  "status",
  "value_at",
  "created_at",
] as const satisfies readonly (keyof TransactionRow)[];
