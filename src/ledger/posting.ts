import { createHash } from "node:crypto";
import { type ChargeSchedule, type Charges, creditCharges, NO_CHARGE } from "./charges.js";
import { type FeeSchedule, feeFor } from "./fees.js";
import type { LedgerAccountKind } from "./kinds.js";

// The arithmetic of the ledger, pure: which accounts an accepted transfer moves money between,
// and each entry's balance-after and chained hash. The repository only stores what this computes.

/** One leg of a posting: an amount in kobo on one of the business's ledger accounts. */
export interface Leg {
  kind: LedgerAccountKind;
  /** Credits positive, debits negative. */
  amount: number;
}

/**
 * The legs of an accepted transfer of `amount` with `fee` and `charges`: the bank settlement
 * account debited the amount, the business's available balance credited it; then, when there is a
 * fee, the fee moved from the available balance to revenue. With charges (VAT on the fee, a stamp
 * duty), the available balance is credited the net at once and the fee, the VAT and the stamp duty
 * each credited to its own account: one entry per account, the fewest rows on the hot path (issue
 * 46's bench: a charged transfer writes one entry more than an uncharged one, not four). Always
 * sums to zero.
 */
export function transferLegs(amount: number, fee: number, charges: Charges = NO_CHARGE): Leg[] {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError(`amount ${amount} is not positive kobo`);
  const { vat, stampDuty } = charges;
  if (
    ![fee, vat, stampDuty].every((kobo) => Number.isSafeInteger(kobo) && kobo >= 0) ||
    fee + vat + stampDuty > amount
  )
    throw new RangeError(`fee ${fee} and charges ${vat} + ${stampDuty} are not within 0..${amount}`);
  const legs: Leg[] = [{ kind: "settlement", amount: -amount }];
  if (vat + stampDuty === 0) {
    legs.push({ kind: "available", amount });
    if (fee > 0) legs.push({ kind: "available", amount: -fee }, { kind: "revenue", amount: fee });
  } else {
    legs.push({ kind: "available", amount: amount - fee - vat - stampDuty });
    if (fee > 0) legs.push({ kind: "revenue", amount: fee });
    if (vat > 0) legs.push({ kind: "vat_payable", amount: vat });
    if (stampDuty > 0) legs.push({ kind: "stamp_duty_payable", amount: stampDuty });
  }
  assertBalanced(legs);
  return legs;
}

/**
 * The largest balance or total, of either sign, the ledger keeps: 2^53 − 1 kobo, the last whole
 * number a JavaScript (and a JSON) number holds exactly. A transfer that would carry one further
 * is refused before anything is written, so every balance stays exact wherever it is read.
 */
export const MAX_BALANCE_KOBO = Number.MAX_SAFE_INTEGER;
const LIMIT = BigInt(MAX_BALANCE_KOBO);

/** Whether `total + amount` stays within ±MAX_BALANCE_KOBO: summed in bigint, so the check cannot round. */
export function staysWithinBalanceLimit(total: number, amount: number): boolean {
  const after = BigInt(total) + BigInt(amount);
  return after <= LIMIT && after >= -LIMIT;
}

/**
 * The first ledger account that `legs`, posted in order onto `heads`, would carry past
 * ±MAX_BALANCE_KOBO, or undefined when every balance stays exact. Every entry stores its balance
 * after, so the balances in between count too (a fee taken back after the credit).
 */
export function firstBalanceBeyondLimit(
  heads: ReadonlyMap<LedgerAccountKind, Pick<AccountHead, "balance">>,
  legs: readonly Leg[],
): LedgerAccountKind | undefined {
  const balances = new Map<LedgerAccountKind, number>();
  for (const leg of legs) {
    const before = balances.get(leg.kind) ?? heads.get(leg.kind)?.balance ?? 0;
    if (!staysWithinBalanceLimit(before, leg.amount)) return leg.kind;
    balances.set(leg.kind, before + leg.amount);
  }
  return undefined;
}

/** Throws unless the legs sum to zero: no posting may create or destroy money. */
export function assertBalanced(legs: readonly Pick<Leg, "amount">[]): void {
  const sum = legs.reduce((total, leg) => total + leg.amount, 0);
  if (sum !== 0) throw new Error(`unbalanced posting: legs sum to ${sum}`);
}

/** The chain's start: the "previous hash" of an account's first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** The fields of an entry that its hash covers. */
export interface ChainedFields {
  ledgerAccountId: string;
  sequence: number;
  transactionId: string;
  amount: number;
  balanceAfter: number;
  createdAt: string;
}

/**
 * SHA-256 over the previous entry's hash and this entry's fields, one per line: changing any
 * entry (or removing one) breaks every hash after it on that account.
 */
export function entryHash(previousHash: string, entry: ChainedFields): string {
  return createHash("sha256")
    .update(
      [
        previousHash,
        entry.ledgerAccountId,
        entry.sequence,
        entry.transactionId,
        entry.amount,
        entry.balanceAfter,
        entry.createdAt,
      ].join("\n"),
    )
    .digest("hex");
}

/** A ledger account's head: what the next entry builds on. */
export interface AccountHead {
  id: string;
  balance: number;
  entryCount: number;
  lastHash: string;
}

export interface ChainedEntry extends ChainedFields {
  previousHash: string;
  hash: string;
}

/**
 * Appends one entry to an account: the next sequence, the new balance and the chained hash.
 * Returns the entry and the account's new head.
 */
export function appendEntry(
  head: AccountHead,
  transactionId: string,
  amount: number,
  createdAt: string,
): { entry: ChainedEntry; head: AccountHead } {
  // The last line of defence: firstBalanceBeyondLimit refuses such a transfer before this.
  if (!staysWithinBalanceLimit(head.balance, amount))
    throw new RangeError(`balance of ${head.id} would leave safe integers`);
  const balanceAfter = head.balance + amount;
  const fields: ChainedFields = {
    ledgerAccountId: head.id,
    sequence: head.entryCount + 1,
    transactionId,
    amount,
    balanceAfter,
    createdAt,
  };
  const hash = entryHash(head.lastHash, fields);
  return {
    entry: { ...fields, previousHash: head.lastHash, hash },
    head: { id: head.id, balance: balanceAfter, entryCount: fields.sequence, lastHash: hash },
  };
}

/**
 * Chains each leg onto its account's head, in order, moving the heads along: the entries to
 * write. Throws when `heads` lacks a leg's account.
 */
export function postLegs(
  heads: Map<LedgerAccountKind, AccountHead>,
  transactionId: string,
  legs: readonly Leg[],
  createdAt: string,
): ChainedEntry[] {
  return legs.map((leg) => {
    const { entry, head } = appendEntry(headOf(heads, leg.kind), transactionId, leg.amount, createdAt);
    heads.set(leg.kind, head);
    return entry;
  });
}

/** The head of the business's `kind` ledger account; throws when it has none. */
export function headOf(
  heads: ReadonlyMap<LedgerAccountKind, AccountHead>,
  kind: LedgerAccountKind,
): AccountHead {
  const head = heads.get(kind);
  if (!head) throw new Error(`the business has no ${kind} ledger account`);
  return head;
}

/** What a transfer to post is: its transaction, amount, the business's fee, when, and its account's total received before it. */
export interface TransferToPost {
  transactionId: string;
  amount: number;
  schedule: FeeSchedule;
  /** The operator's charges schedule, read with the fee. */
  charges: ChargeSchedule;
  createdAt: string;
  /** The receiving account's total received before this transfer, which the transfer moves too. */
  received: number;
}

/** A transfer posted: its fee and charges, its entries (the heads moved along), and the available balance after. */
export interface TransferPosted {
  fee: number;
  charges: Charges;
  entries: ChainedEntry[];
  available: number;
}

/**
 * A transfer's whole posting, the ledger's one call for it: the fee by the business's schedule,
 * its charges by the operator's (computed here, in the same posting: no read of their own), the legs, the limit on every balance they move, the entries chained onto `heads` (moved along).
 * When a leg would carry one of the business's ledger accounts past ±MAX_BALANCE_KOBO, or the
 * account's total received would pass it, nothing is posted and that account is answered
 * (`received` for the account's total).
 */
export function postTransfer(
  heads: Map<LedgerAccountKind, AccountHead>,
  { transactionId, amount, schedule, charges: chargeSchedule, createdAt, received }: TransferToPost,
): TransferPosted | { beyondLimit: LedgerAccountKind | "received" } {
  const { fee, charges } = creditCharges(amount, feeFor(amount, schedule), chargeSchedule);
  const legs = transferLegs(amount, fee, charges);
  const beyond =
    firstBalanceBeyondLimit(heads, legs) ??
    (staysWithinBalanceLimit(received, amount) ? undefined : "received");
  if (beyond !== undefined) return { beyondLimit: beyond };
  const entries = postLegs(heads, transactionId, legs, createdAt);
  return { fee, charges, entries, available: headOf(heads, "available").balance };
}
