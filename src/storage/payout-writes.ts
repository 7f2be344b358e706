import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { RowLocks } from "../core/row-locks.js";
import type { LedgerAccountToOpen } from "../ledger/kinds.js";
import type {
  CreditBlockWrite,
  Heads,
  HeldCreditWrite,
  LedgerPosting,
  LockedLedger,
  PayoutLedger,
  PayoutLocks,
  PayoutPosting,
} from "../ledger/ledger-port.js";
import type { PayoutRecord } from "../ledger/ledger-records.js";
import type { Storage } from "./database.js";
import type { Executor } from "./executor.js";
import {
  latestEntryTime,
  lockedBusiness,
  movePayout,
  payoutVolumeSince,
  STEPS,
} from "./payout-repository.js";
import { writeTransaction } from "./transactions.js";

/**
 * The ledger's own statements as a query builder's transaction runs them, one implementation
 * per dialect (sqlite/ and postgres/ledger-writes.ts) on the very statements a transfer's posting
 * runs, so each write of the ledger is spelled once per dialect.
 */
export interface LedgerWrites {
  /**
   * The business's heads, taken for the rest of the transaction in id order (the order transfers
   * take them in), after opening those of `accounts` it does not have yet.
   */
  lockedHeads(
    tx: Executor,
    businessId: string,
    accounts: readonly LedgerAccountToOpen[],
    now: string,
  ): Promise<Heads>;
  /** Writes postings' entries (of one business, in order) and moves their heads. */
  post(tx: Executor, postings: readonly LedgerPosting[]): Promise<void>;
}

/**
 * The ledger's port for money out (ledger/ledger-port.ts), on the dialect's ledger statements,
 * row locks and event writes: `post` takes the locks and reads, runs the decision and writes
 * everything its posting writes in one `writeTransaction`, with the request's answer.
 */
export function payoutLedger(
  storage: Storage,
  ledger: LedgerWrites,
  locks: RowLocks,
  deliveries: DeliveryDialect<Executor>,
): PayoutLedger<Executor> {
  return {
    post: (asked, decide, unit) =>
      writeTransaction(
        storage,
        async (trx) => {
          const decided = await decide(trx, await locked(trx, asked, ledger, locks));
          const { posting, credit, block } = decided;
          if (posting) await writePayoutPosting(trx, posting, ledger, deliveries);
          if (credit) await writeHeldCredit(trx, credit, ledger, deliveries);
          if (block) await writeCreditBlock(trx, block, ledger, deliveries);
          return decided.result;
        },
        unit,
      ),
  };
}

/**
 * The locks money out asks for, taken in order (the business's row before its heads), and what
 * they guard. A business asked for that does not exist has no ledger to take: nothing more is read.
 */
async function locked(
  trx: Executor,
  asked: PayoutLocks,
  ledger: LedgerWrites,
  locks: RowLocks,
): Promise<LockedLedger> {
  const { businessId, volumeSince } = asked;
  const business = asked.business ? await lockedBusiness(trx, locks, businessId) : undefined;
  if (asked.business && !business) {
    return {
      verification: undefined,
      terms: undefined,
      charges: undefined,
      heads: new Map(),
      latestEntry: undefined,
      volume: 0,
    };
  }
  const heads = await ledger.lockedHeads(trx, businessId, asked.accounts, asked.now);
  const latestEntry = await latestEntryTime(trx, heads.values());
  const volume = volumeSince
    ? await payoutVolumeSince(trx, businessId, volumeSince.since, volumeSince.counted)
    : 0;
  return {
    verification: business?.verification,
    terms: business?.terms,
    charges: business?.charges,
    heads,
    latestEntry,
    volume,
  };
}

const movedTo = ({ status, failure_reason, session_id, nip_codes, updated_at }: PayoutRecord) => ({
  status,
  failure_reason,
  session_id,
  nip_codes,
  updated_at,
});

/**
 * A payout's posting, whole: its row (made, or moved from the status read under the locks), each
 * phase's step, the entries and heads, a settlement's row, the events and their deliveries.
 */
async function writePayoutPosting(
  trx: Executor,
  posting: PayoutPosting,
  ledger: LedgerWrites,
  deliveries: DeliveryDialect<Executor>,
): Promise<void> {
  const { payout } = posting;
  if ("made" in payout) {
    await trx.insertInto("payouts").values(payout.made).execute();
  } else if (!(await movePayout(trx, payout.moved.id, payout.from, movedTo(payout.moved)))) {
    // A payout's status moves only under its business's ledger locks, where it was read.
    throw new Error(`payout ${payout.moved.id} was not at ${payout.from} under the ledger's locks`);
  }
  if (posting.phases.length > 0) {
    await trx
      .insertInto("payout_postings")
      .values(
        posting.phases.map((phase) => ({
          id: phase.id,
          payout_id: "made" in payout ? payout.made.id : payout.moved.id,
          business_id: posting.businessId,
          phase: phase.phase,
          step: STEPS[phase.phase],
          created_at: phase.createdAt,
        })),
      )
      .execute();
    await ledger.post(trx, posting.phases);
  }
  if (posting.settlement) await trx.insertInto("settlements").values(posting.settlement).execute();
  for (const event of posting.events) await deliveries.recordEvent(trx, event);
}

/** A held credit's decision, whole (issue 46): its row (inserted, or moved from the state it was read at), its posting, its events. */
export async function writeHeldCredit(
  trx: Executor,
  credit: HeldCreditWrite,
  ledger: LedgerWrites,
  deliveries: DeliveryDialect<Executor>,
): Promise<void> {
  const { record } = credit;
  if (credit.from === undefined) {
    await trx.insertInto("held_credits").values(record).execute();
  } else {
    const moved = await trx
      .updateTable("held_credits")
      .set({
        state: record.state,
        fee: record.fee,
        vat: record.vat,
        stamp_duty: record.stamp_duty,
        posting_id: record.posting_id,
        refund_id: record.refund_id,
        decided_at: record.decided_at,
        decided_by_type: record.decided_by_type,
        decided_by_id: record.decided_by_id,
      })
      .where("transaction_id", "=", record.transaction_id)
      .where("state", "=", credit.from)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1)
      throw new Error(`held credit ${record.transaction_id} was not ${credit.from} under the ledger's locks`);
  }
  if (credit.posting) await ledger.post(trx, [credit.posting]);
  for (const event of credit.events) await deliveries.recordEvent(trx, event);
}

/** An operator's block, whole (issue 46, item 7): its row (inserted, or moved from the state it was read at), its posting, its events. */
export async function writeCreditBlock(
  trx: Executor,
  block: CreditBlockWrite,
  ledger: LedgerWrites,
  deliveries: DeliveryDialect<Executor>,
): Promise<void> {
  const { record } = block;
  if (block.from === undefined) {
    await trx.insertInto("credit_blocks").values(record).execute();
  } else {
    const moved = await trx
      .updateTable("credit_blocks")
      .set({
        state: record.state,
        release_posting_id: record.release_posting_id,
        refund_id: record.refund_id,
        decided_at: record.decided_at,
        decided_by_type: record.decided_by_type,
        decided_by_id: record.decided_by_id,
      })
      .where("id", "=", record.id)
      .where("state", "=", block.from)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1)
      throw new Error(`credit block ${record.id} was not ${block.from} under the ledger's locks`);
  }
  if (block.posting) await ledger.post(trx, [block.posting]);
  for (const event of block.events) await deliveries.recordEvent(trx, event);
}
