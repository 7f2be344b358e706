import type { PayoutStatus } from "../core/api-types.js";
import type { VerificationStatus } from "../core/business-states.js";
import type { EventToWrite } from "../core/event-to-write.js";
import type { PayoutsCounted } from "../core/payouts-counted.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import type { ChargeSchedule } from "./charges.js";
import type { HoldPhase } from "./holds.js";
import type { LedgerAccountKind, LedgerAccountToOpen } from "./kinds.js";
import type {
  AccountTotals,
  ConflictInput,
  CreditBlockRecord,
  CreditedAccount,
  HeldCreditRecord,
  PayoutRecord,
  PayoutTermsRecord,
  SettlementRecord,
  TransactionRecord,
} from "./ledger-records.js";
import type { AccountHead, ChainedEntry } from "./posting.js";

// The ledger's one port: every posting of money, in and out, goes through it, and each of its
// methods writes everything its posting writes, with the request's stored answer, in one write
// (Formance's CommitTransaction, Blnk's RecordTransactionWithBalances). Declared here, with the
// ledger's rules, in the core: storage implements it by name, once per dialect, and chooses the
// locks. Its events are core's EventToWrite, which storage writes.

/** A business's ledger accounts' heads by kind, as a posting moves them along. */
export type Heads = Map<LedgerAccountKind, AccountHead>;

/** What a posting writes in the ledger: its entries, under its id, and the heads it leaves. */
export interface LedgerPosting {
  /** The posting's id: the entries' transaction id (a collection's transaction, a payout's posting). */
  id: string;
  businessId: string;
  entries: readonly ChainedEntry[];
  /** The heads the entries moved, after them. */
  heads: Iterable<AccountHead>;
}

/** What the domain posts a transfer onto, read under the locks: the fee and charges, the ledger heads, the last transaction. */
export interface LedgerState {
  fee: { basisPoints: number; capKobo: number | null };
  /** The operator's charges schedule, read with the fee (no read of its own). */
  charges: ChargeSchedule;
  heads: Heads;
  /** The business's newest transaction (undefined before its first). */
  last: Pick<TransactionRecord, "ordinal" | "created_at"> | undefined;
}

/** The account a notification's number was issued to, with that number's retirement, and its ledger. */
export interface AccountFound {
  account: CreditedAccount;
  /** When this number was retired by a re-issue (null: it is the account's current number). */
  retiredAt: string | null;
  ledger: LedgerState;
}

/** A transfer posted by the domain: what storage writes, and the result to answer with. */
export interface TransferPosting<R> {
  transaction: TransactionRecord;
  entries: readonly ChainedEntry[];
  /** The ledger accounts' heads after the entries. */
  heads: Iterable<AccountHead>;
  event: EventToWrite;
  /** The account's totals after this transfer (its row is held: nothing else moves them). */
  accountTotals: AccountTotals;
  result: R;
}

/** A session id recorded before: the same transfer again (answer `duplicate`), or a conflict to keep. */
export type SeenBefore<R> = { duplicate: R } | { conflict: ConflictInput };

/**
 * The domain's decisions on a notification, made under storage's locks from what it read:
 * synchronous and pure (on SQLite they run inside the write itself). `post` throws a refusal
 * (the acceptance rules), which writes nothing.
 */
export interface TransferDecisions<R> {
  /** The session id was recorded before, as `existing`. */
  again(existing: TransactionRecord): SeenBefore<R>;
  /**
   * The kinds of ledger account a business has (as data: storage opens them, ledger/kinds.ts's
   * `ledgerAccountsOf`, only when the business lacks some), before `post` reads them.
   */
  ledgerKinds: readonly LedgerAccountKind[];
  /** A new session id: accept into the account `found` by its number (if any) and post it onto its ledger. */
  post(found: AccountFound | undefined): TransferPosting<R>;
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
 * Collections' side of the port (issue 12's hot path): a bank notification recorded with its
 * transaction, entries, heads, the account's totals, its event and deliveries, and the answer,
 * in one write (sqlite/ and postgres/transfer-writes.ts). Ingestions of one session id take
 * turns, and so do transfers into one account and one business's transfers. A conflict is kept,
 * and commits without an answer.
 */
export interface TransferWrites {
  ingest<R>(
    transfer: TransferKeys,
    decide: TransferDecisions<R>,
    unit: UnitOfWork | undefined,
  ): Promise<TransferOutcome<R>>;
}

/** One phase of a payout on the ledger: its step (the payout's posting) and its entries. */
export interface PhasePosting extends LedgerPosting {
  phase: HoldPhase;
  createdAt: string;
}

/**
 * Everything a payout's posting writes (a payout made, or moved by what its bank says; a refund
 * and a settlement are payouts): the payout's row, each phase's step, entries and heads, the
 * events with their deliveries, and a settlement's own row.
 */
export interface PayoutPosting {
  businessId: string;
  /** The payout made, or moved from the status it was read at under the locks to `moved`'s. */
  payout: { made: PayoutRecord } | { moved: PayoutRecord; from: PayoutStatus };
  /** In order; each phase's heads are those it moved, after it. */
  phases: readonly PhasePosting[];
  events: readonly EventToWrite[];
  settlement?: SettlementRecord;
}

/**
 * A decision on a held credit (issue 46, item 6): its row, written whole (a first decision) or
 * moved (`from`: the state it was read at under the locks), the posting it makes (an acceptance's)
 * and its events.
 */
export interface HeldCreditWrite {
  record: HeldCreditRecord;
  from?: HeldCreditRecord["state"];
  posting?: LedgerPosting;
  events: readonly EventToWrite[];
}

/**
 * An operator's block on a disputed credit (issue 46, item 7): its row, written whole (a block
 * made) or moved (`from`: the state it was read at under the locks), the posting it makes (a
 * block's or a release's; a return's is its refund's hold) and its events.
 */
export interface CreditBlockWrite {
  record: CreditBlockRecord;
  from?: CreditBlockRecord["state"];
  posting?: LedgerPosting;
  events: readonly EventToWrite[];
}

/** What a money-out write decided under the locks: what it posts (nothing: no write) and its answer. */
export interface Decided<R> {
  posting?: PayoutPosting;
  /** A held credit's decision, written in the same transaction (after the payout's posting). */
  credit?: HeldCreditWrite;
  /** An operator's block on a credit, made or moved, written in the same transaction (after the payout's posting). */
  block?: CreditBlockWrite;
  result: R;
}

/**
 * Money out's side of the port (payouts, refunds, settlements, reversals): one write transaction
 * (`Tx`): storage takes the locks asked for and reads what they guard, the domain decides on
 * that (as collections' decisions are made), then everything the posting writes is written, with
 * the request's stored answer (Formance's controller, the store bound to its transaction; one
 * implementation for both dialects, storage/payout-writes.ts).
 */
export interface PayoutLedger<Tx> {
  /**
   * One transaction: `locks` taken and read first, then `decide` (which may read more through
   * `tx`) says what to post; then the posting is written, whole, with `unit`'s answer, and
   * committed. A refusal thrown by `decide` writes nothing.
   */
  post<R>(
    locks: PayoutLocks,
    decide: (tx: Tx, locked: LockedLedger) => Promise<Decided<R>>,
    unit?: UnitOfWork,
  ): Promise<R>;
}

/** What money out's transaction takes before its decision, in this order, and reads under it. */
export interface PayoutLocks {
  businessId: string;
  /** The business's row, and its verification status and payout terms read under it (a payout made). */
  business?: boolean;
  /** The ledger accounts it has: opened if it lacks them, then its heads taken in id order. */
  accounts: readonly LedgerAccountToOpen[];
  now: string;
  /** The kobo of its payouts created at or after `since`, of those `counted` (a limited payout). */
  volumeSince?: { since: string; counted: PayoutsCounted };
}

/** What money out's decision is made on, read under its locks. */
export interface LockedLedger {
  /** Undefined unless the business's row was taken (or there is no such business). */
  verification: VerificationStatus | undefined;
  /** The business's payout terms, read with its verification (undefined as it is). */
  terms: PayoutTermsRecord | undefined;
  /** The charges' schedule in force, read in the same statement (undefined as the terms are). */
  charges: ChargeSchedule | undefined;
  heads: Heads;
  /** The newest entry's time on those heads (undefined before the first). */
  latestEntry: string | undefined;
  /** 0 unless asked for. */
  volume: number;
}

/** The ledger's port, whole: what the stores hand collections and money out (compose/). */
export type Ledger<Tx> = TransferWrites & PayoutLedger<Tx>;
