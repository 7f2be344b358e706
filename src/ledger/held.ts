import { type ChargeSchedule, type Charges, creditCharges, NO_CHARGE } from "./charges.js";
import { type FeeSchedule, feeFor } from "./fees.js";
import type { LedgerAccountKind } from "./kinds.js";
import {
  type AccountHead,
  assertBalanced,
  type ChainedEntry,
  firstBalanceBeyondLimit,
  headOf,
  type Leg,
  postLegs,
  staysWithinBalanceLimit,
  transferLegs,
} from "./posting.js";

// Held credits (issue 46, items 6 and 7), pure: a credit an account's rules do not take, under its
// `hold` policy, comes in from the bank to the business's `held` ledger account, the whole amount
// and no fee yet; accepting it moves it on to `available` and takes the fee and its charges then,
// as a credit would have at once. An operator's block on a credit the payer's bank disputes moves
// its amount from `available` to `held` (the database refuses it past available); releasing it
// moves it back. A return takes the amount out of `held` to the payer (a refund whose hold's source
// is `held`: holds.ts). `held` never goes below zero. Every posting sums to zero.

function checkAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError(`amount ${amount} is not positive kobo`);
}

function balanced(legs: Leg[]): Leg[] {
  assertBalanced(legs);
  return legs;
}

/** A held credit's arrival: the bank's settlement account debited, the business's held balance credited. */
export function heldArrivalLegs(amount: number): Leg[] {
  checkAmount(amount);
  return balanced([
    { kind: "settlement", amount: -amount },
    { kind: "held", amount },
  ]);
}

/**
 * Accepting a held credit: what its arrival would have posted had it been taken (transferLegs),
 * from `held` instead of `settlement` (which took it already), the fee and charges included.
 */
export function acceptLegs(amount: number, fee: number, charges: Charges): Leg[] {
  return balanced(
    transferLegs(amount, fee, charges).map((leg) =>
      leg.kind === "settlement" ? { ...leg, kind: "held" } : leg,
    ),
  );
}

/** An operator's block: the credit's amount from available to held. */
export function blockLegs(amount: number): Leg[] {
  checkAmount(amount);
  return balanced([
    { kind: "available", amount: -amount },
    { kind: "held", amount },
  ]);
}

/** A block released: the amount back from held to available. */
export function releaseLegs(amount: number): Leg[] {
  checkAmount(amount);
  return balanced([
    { kind: "held", amount: -amount },
    { kind: "available", amount },
  ]);
}

/** A held credit posted: its entries (the heads moved along) and the available balance after. */
export interface HeldPosted {
  entries: ChainedEntry[];
  available: number;
}

/**
 * `legs` chained onto `heads` as `transactionId`'s entries, unless one would carry a balance past
 * ±MAX_BALANCE_KOBO (or `received`, the account's total, would pass it by `amount`): then that
 * account is answered and nothing is posted.
 */
export function postHeldLegs(
  heads: Map<LedgerAccountKind, AccountHead>,
  legs: readonly Leg[],
  { transactionId, createdAt, received, amount }: HeldToPost,
): HeldPosted | { beyondLimit: LedgerAccountKind | "received" } {
  const beyond =
    firstBalanceBeyondLimit(heads, legs) ??
    (staysWithinBalanceLimit(received, amount) ? undefined : "received");
  if (beyond !== undefined) return { beyondLimit: beyond };
  const entries = postLegs(heads, transactionId, legs, createdAt);
  return { entries, available: headOf(heads, "available").balance };
}

/** A held credit's arrival posted, in postTransfer's shape: no fee, no charges (they come with its acceptance). */
export function postHeldArrival(
  heads: Map<LedgerAccountKind, AccountHead>,
  toPost: HeldToPost,
): (HeldPosted & { fee: number; charges: Charges }) | { beyondLimit: LedgerAccountKind | "received" } {
  const posted = postHeldLegs(heads, heldArrivalLegs(toPost.amount), toPost);
  return "beyondLimit" in posted ? posted : { ...posted, fee: 0, charges: NO_CHARGE };
}

/** What a held credit's posting is made of. */
export interface HeldToPost {
  transactionId: string;
  amount: number;
  createdAt: string;
  /** The account's total received before it (which an acceptance moves by `amount`; 0 when it does not). */
  received: number;
}

/** The fee and charges an accepted credit of `amount` takes, by the business's schedule and the operator's. */
export function acceptedCharges(
  amount: number,
  schedule: FeeSchedule,
  charges: ChargeSchedule,
): { fee: number; charges: Charges } {
  return creditCharges(amount, feeFor(amount, schedule), charges);
}

/** The heads `legs` moved, after them (what a posting hands the port to write). */
export function movedHeads(heads: Map<LedgerAccountKind, AccountHead>, legs: readonly Leg[]): AccountHead[] {
  const kinds = new Set(legs.map((leg) => leg.kind));
  return [...heads.entries()].filter(([kind]) => kinds.has(kind)).map(([, head]) => head);
}
