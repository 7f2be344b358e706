import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import type { Actor } from "../core/actor.js";
import { insufficientBalance } from "../core/money-out-errors.js";
import { blockNotFound, blockNotStanding, creditNotBlockable, transactionNotFound } from "../errors.js";
import { blockLegs, movedHeads, postHeldLegs, releaseLegs } from "../ledger/held.js";
import { AMOUNT_OUT_STATUSES } from "../ledger/holds.js";
import { ledgerAccountsOf } from "../ledger/kinds.js";
import { formatNaira } from "../ledger/kobo.js";
import type { CreditBlockWrite, LockedLedger, PayoutLedger } from "../ledger/ledger-port.js";
import type { CreditBlockRecord, ListedBlock, TransactionRecord } from "../ledger/ledger-records.js";
import type { Leg } from "../ledger/posting.js";
import { blocksOf, creditOf, findCreditBlock, listCreditBlocks } from "../storage/credit-block-repository.js";
import type { Storage } from "../storage/database.js";
import { isNegativeBalanceRefusal } from "../storage/errors.js";
import type { Executor } from "../storage/executor.js";
import { findHeldCredit } from "../storage/held-credit-repository.js";
import { findPayoutById, refundedAmounts } from "../storage/payout-repository.js";
import { findTransaction } from "../storage/transaction-repository.js";
import {
  audit,
  type BlockInput,
  blockEvent,
  blockView,
  type CreditBlock,
  creditKey,
} from "./credit-block-records.js";

// Erroneous credits (issue 46, item 7). When the payer's bank disputes a credit (sent in error:
// the CBN has such a credit reversed within a business day where the funds are there), an operator
// blocks an amount of it: moved from the business's available balance to its held one, where it
// can be neither paid out nor settled. The operator then releases it (back to available) or returns
// it to the payer (a refund from held: payouts/block-returns.ts). Each move is made under the
// business's ledger locks (the ledger's port for money out), with the block's row, the operator
// who made it and its event, in one write.

export interface CreditBlocksOptions {
  storage: Storage;
  ledger: PayoutLedger<Executor>;
  now?: Clock;
}

export class CreditBlocks {
  private readonly now: Clock;

  constructor(private readonly options: CreditBlocksOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Blocks an amount of a credit (all that is left of it when none is asked): 404 for no such
   * credit; 422 CREDIT_NOT_BLOCKABLE for one held (its business accepts or returns it), returned,
   * refunded in full, asked past what is left of it, or with a block standing on it already; 422
   * INSUFFICIENT_BALANCE when the business's available balance does not have the amount.
   */
  async block(actor: Actor, input: BlockInput): Promise<CreditBlock> {
    const found = await creditOf(this.options.storage.db, creditKey(input.credit));
    if (!found) throw transactionNotFound();
    const businessId = found.business_id;
    const now = isoNow(this.now);
    try {
      return await this.options.ledger.post(
        { businessId, accounts: ledgerAccountsOf(businessId), now },
        async (trx, locked) => {
          const credit = await findTransaction(trx, businessId, found.id);
          if (!credit) throw transactionNotFound();
          const amount = await blockable(trx, credit, input.amount);
          const available = locked.heads.get("available")?.balance ?? 0;
          if (available < amount) throw shortOf(available, amount);
          const record: CreditBlockRecord = {
            id: `blk_${randomUUID().replaceAll("-", "")}`,
            transaction_id: credit.id,
            business_id: businessId,
            amount,
            reason: input.reason,
            state: "blocked",
            release_posting_id: null,
            refund_id: null,
            created_at: postedAt(locked, now),
            created_by_type: actor.type,
            created_by_id: actor.id,
            decided_at: null,
            decided_by_type: null,
            decided_by_id: null,
          };
          const write = posted(locked, blockLegs(amount), record.id, record, {
            record,
            events: [blockEvent("payment.blocked", record, credit)],
          });
          await audit(trx, actor, "credit.blocked", record, { reason: record.reason });
          return { block: write, result: blockView(record, credit) };
        },
      );
    } catch (error) {
      // The database refuses an available balance below zero, whatever the check above read.
      if (isNegativeBalanceRefusal(error)) throw shortOf(undefined, input.amount);
      throw error;
    }
  }

  /** Releases a block: its amount back from held to available, with `payment.released`. 404, or 422 BLOCK_NOT_STANDING. */
  async release(actor: Actor, blockId: string): Promise<CreditBlock> {
    const found = await this.find(blockId);
    const businessId = found.business_id;
    const now = isoNow(this.now);
    return this.options.ledger.post(
      { businessId, accounts: ledgerAccountsOf(businessId), now },
      async (trx, locked) => {
        const standing = await findCreditBlock(trx, blockId);
        if (standing?.state !== "blocked") throw blockNotStanding(standing?.state ?? "removed");
        const credit = await findTransaction(trx, businessId, standing.transaction_id);
        if (!credit) throw transactionNotFound();
        const postingId = `blr_${randomUUID().replaceAll("-", "")}`;
        const record: CreditBlockRecord = {
          ...standing,
          amount: Number(standing.amount),
          state: "released",
          release_posting_id: postingId,
          decided_at: postedAt(locked, now),
          decided_by_type: actor.type,
          decided_by_id: actor.id,
        };
        const write = posted(locked, releaseLegs(record.amount), postingId, record, {
          record,
          from: "blocked",
          events: [blockEvent("payment.released", record, credit)],
        });
        await audit(trx, actor, "credit.released", record);
        return { block: write, result: blockView(record, credit) };
      },
    );
  }

  /** A block by its id (any business's: the operator's view), 404 when there is none. */
  async find(blockId: string): Promise<CreditBlockRecord> {
    const found = /^blk_[0-9a-f]{32}$/.test(blockId)
      ? await findCreditBlock(this.options.storage.db, blockId)
      : undefined;
    if (!found) throw blockNotFound();
    return found;
  }

  /** Blocks, the newest first: standing ones only, or all; of one business or of every one (the console). */
  list(filter: {
    state?: CreditBlockRecord["state"];
    businessId?: string;
    limit?: number;
  }): Promise<ListedBlock[]> {
    return listCreditBlocks(this.options.storage.db, { ...filter, limit: filter.limit ?? 100 });
  }

  /** One of a business's credits' blocks, the newest first (its dashboard's transaction page). */
  async ofCredit(businessId: string, transactionId: string): Promise<CreditBlock[]> {
    const credit = await findTransaction(this.options.storage.db, businessId, transactionId);
    if (!credit) return [];
    return (await blocksOf(this.options.storage.db, credit.id)).map((record) => blockView(record, credit));
  }
}

/**
 * How much of `credit` a block may take (all that is left when `asked` is undefined), read under
 * the ledger locks: what is not refunded (pending refunds count) nor blocked; refused as the
 * operator must hear it.
 */
async function blockable(
  trx: Executor,
  credit: TransactionRecord,
  asked: number | undefined,
): Promise<number> {
  if (credit.status === "held") {
    const decision = await findHeldCredit(trx, credit.id);
    if (decision?.state !== "accepted")
      throw creditNotBlockable(
        decision?.state === "returned"
          ? "it was returned to its payer"
          : "it is held, never credited: its business accepts or returns it",
      );
  }
  for (const block of await blocksOf(trx, credit.id)) {
    if (block.state === "blocked")
      throw creditNotBlockable("a block stands on it already: release or return that one first");
    // A return the bank does not make stands the block again: until it answers, no other.
    if (block.state === "returned" && (await refundStatus(trx, block.refund_id)) === "pending")
      throw creditNotBlockable("a block's return to its payer is under way: wait for the bank's answer");
  }
  const amount = Number(credit.amount);
  const refunded = (await refundedAmounts(trx, [credit.id], AMOUNT_OUT_STATUSES)).get(credit.id) ?? 0;
  const left = amount - refunded;
  if (left <= 0) throw creditNotBlockable(`its ${formatNaira(amount)} was refunded in full`);
  if (asked !== undefined && asked > left)
    throw creditNotBlockable(
      `${formatNaira(left)} is left of this ${formatNaira(amount)} credit (${formatNaira(refunded)} refunded): block at most that`,
    );
  return asked ?? left;
}

const shortOf = (available: number | undefined, amount: number | undefined) =>
  insufficientBalance(
    `The available balance${available === undefined ? "" : ` (${formatNaira(available)})`} does not have ${amount === undefined ? "the amount" : formatNaira(amount)} to block: block what is there, or wait for it`,
  );

/** A posting's time: now, or the newest entry's when the clock is behind it (entries never go back in time). */
const postedAt = (locked: LockedLedger, now: string) =>
  locked.latestEntry !== undefined && locked.latestEntry > now ? locked.latestEntry : now;

/** `legs` posted onto the locked heads as `postingId`, into `write`. */
function posted(
  locked: LockedLedger,
  legs: Leg[],
  postingId: string,
  record: CreditBlockRecord,
  write: CreditBlockWrite,
): CreditBlockWrite {
  const createdAt = record.decided_at ?? record.created_at;
  const result = postHeldLegs(locked.heads, legs, {
    transactionId: postingId,
    amount: Number(record.amount),
    createdAt,
    received: 0,
  });
  // A block and its release move money between two balances of one business: neither passes a limit.
  if ("beyondLimit" in result)
    throw new Error(`block ${record.id} would carry ${result.beyondLimit} past its limit`);
  return {
    ...write,
    posting: {
      id: postingId,
      businessId: record.business_id,
      entries: result.entries,
      heads: movedHeads(locked.heads, legs),
    },
  };
}

/** A refund's status (undefined: none). */
const refundStatus = async (trx: Executor, id: string | null) =>
  id === null ? undefined : (await findPayoutById(trx, id))?.status;
