import type { PayoutStatus } from "../core/api-types.js";
import { type Charges, chargesTotal, NO_CHARGE } from "./charges.js";
import type { LedgerAccountKind } from "./kinds.js";
import { type AccountHead, assertBalanced, type ChainedEntry, type Leg, postLegs } from "./posting.js";

// Money out in two phases, as TigerBeetle's pending transfers: a hold moves a payout's amount
// and fee from the business's `available` balance to its `pending` one; the bank's success
// posts the hold (the amount leaves through the bank, into `paid_out`; the fee goes to revenue),
// its failure voids it (everything back to `available`, the fee included). Each hold ends
// exactly once, either way. A payout the receiving bank sends back after success is a reversal:
// the amount returns from `paid_out` to `available`, the fee stays earned. `settlement` is never
// touched, so minus its balance stays what came in. A payout's charges (VAT on its fee, its stamp
// duty) go with its fee: held with it, posted to vat_payable and stamp_duty_payable when the bank
// pays, given back when it does not, kept on a reversal (the transfer was made). Pure: the legs,
// each posting summing to zero, and a phase's entries chained onto the heads.

function checkKobo(amount: number, fee: number, charges: Charges = NO_CHARGE): void {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError(`amount ${amount} is not positive kobo`);
  for (const kobo of [fee, charges.vat, charges.stampDuty])
    if (!Number.isSafeInteger(kobo) || kobo < 0)
      throw new RangeError(`fee or charge ${kobo} is not kobo, 0 or more`);
  if (!Number.isSafeInteger(amount + fee + chargesTotal(charges)))
    throw new RangeError("amount, fee and charges together leave safe integers");
}

/**
 * Where a payout's hold takes its money from, and where a void or a reversal gives it back: the
 * available balance, or (a held credit returned to its payer, issue 46) the held one.
 */
export type HoldSource = Extract<LedgerAccountKind, "available" | "held">;

/** What a hold takes from available: the amount, the fee and the charges. */
export const heldFor = (amount: number, fee: number, charges: Charges = NO_CHARGE) =>
  amount + fee + chargesTotal(charges);

function balanced(legs: Leg[]): Leg[] {
  assertBalanced(legs);
  return legs;
}

/** The hold: amount, fee and charges from available to pending. The database refuses it past available. */
export function holdLegs(
  amount: number,
  fee: number,
  charges: Charges = NO_CHARGE,
  source: HoldSource = "available",
): Leg[] {
  checkKobo(amount, fee, charges);
  const held = heldFor(amount, fee, charges);
  return balanced([
    { kind: source, amount: -held },
    { kind: "pending", amount: held },
  ]);
}

/** The bank paid: the hold leaves pending, the amount to paid_out, the fee to revenue, the charges to theirs. */
export function postHoldLegs(amount: number, fee: number, charges: Charges = NO_CHARGE): Leg[] {
  checkKobo(amount, fee, charges);
  const legs: Leg[] = [
    { kind: "pending", amount: -heldFor(amount, fee, charges) },
    { kind: "paid_out", amount },
  ];
  if (fee > 0) legs.push({ kind: "revenue", amount: fee });
  if (charges.vat > 0) legs.push({ kind: "vat_payable", amount: charges.vat });
  if (charges.stampDuty > 0) legs.push({ kind: "stamp_duty_payable", amount: charges.stampDuty });
  return balanced(legs);
}

/**
 * The bank did not pay: the whole hold, fee and charges included, back to where it came from. The
 * hold's legs turned: each sign flipped, in the reverse order (pending first, as it was last).
 */
export function voidHoldLegs(
  amount: number,
  fee: number,
  charges: Charges = NO_CHARGE,
  source: HoldSource = "available",
): Leg[] {
  return balanced(
    holdLegs(amount, fee, charges, source)
      .map((leg) => ({ kind: leg.kind, amount: -leg.amount }))
      .reverse(),
  );
}

/** A paid payout sent back by the receiving bank: the amount back to available; the fee stays earned. */
export function reversalLegs(amount: number, source: HoldSource = "available"): Leg[] {
  checkKobo(amount, 0);
  return balanced([
    { kind: "paid_out", amount: -amount },
    { kind: source, amount },
  ]);
}

/** The postings of a payout, in the order they can come: its hold, its end (post or void), a reversal. */
export type HoldPhase = "hold" | "post" | "void" | "reversal";

/** The legs of one phase of a payout of `amount` with `fee` and `charges`. */
export function phaseLegs(
  phase: HoldPhase,
  amount: number,
  fee: number,
  charges: Charges = NO_CHARGE,
  source: HoldSource = "available",
): Leg[] {
  switch (phase) {
    case "hold":
      return holdLegs(amount, fee, charges, source);
    case "post":
      return postHoldLegs(amount, fee, charges);
    case "void":
      return voidHoldLegs(amount, fee, charges, source);
    case "reversal":
      return reversalLegs(amount, source);
  }
}

/**
 * One phase of a payout of `amount` with `fee` on the ledger: its legs chained onto `heads` (which
 * move along) as the entries of `transactionId`, and the heads those legs moved, after them.
 */
export function phaseEntries(
  phase: HoldPhase,
  amount: number,
  fee: number,
  heads: Map<LedgerAccountKind, AccountHead>,
  transactionId: string,
  createdAt: string,
  charges: Charges = NO_CHARGE,
  source: HoldSource = "available",
): { entries: ChainedEntry[]; moved: AccountHead[] } {
  const legs = phaseLegs(phase, amount, fee, charges, source);
  const entries = postLegs(heads, transactionId, legs, createdAt);
  const kinds = new Set(legs.map((leg) => leg.kind));
  return { entries, moved: [...heads.entries()].filter(([kind]) => kinds.has(kind)).map(([, head]) => head) };
}

/**
 * The postings a payout of each status has, in order: what the ledger must show of it. The one
 * statement of that rule: the service moves a payout along it (payouts/payout-model.ts), `vas
 * ledger verify` checks payouts' postings and the balances against it, and what counts toward the
 * limits and against a refunded payment is derived from it.
 */
export const PHASES_OF_STATUS: Readonly<Record<PayoutStatus, readonly HoldPhase[]>> = {
  pending: ["hold"],
  successful: ["hold", "post"],
  failed: ["hold", "void"],
  reversed: ["hold", "post", "reversal"],
};

/** What payouts of one status, `amount`, `fee` and `charges` kobo in all, leave on each ledger account. */
export function ledgerEffect(
  status: PayoutStatus,
  amount: number,
  fee: number,
  charges: Charges = NO_CHARGE,
  source: HoldSource = "available",
): Map<LedgerAccountKind, number> {
  const effect = new Map<LedgerAccountKind, number>();
  if (amount === 0) return effect;
  for (const phase of PHASES_OF_STATUS[status]) {
    for (const leg of phaseLegs(phase, amount, fee, charges, source))
      effect.set(leg.kind, (effect.get(leg.kind) ?? 0) + leg.amount);
  }
  return effect;
}

/**
 * The statuses in which a payout's amount is out of the business's available balance (held, or
 * paid): they count toward its limits, and a refund's against its payment. A failed payout's and a
 * reversed one's amount came back.
 */
export const AMOUNT_OUT_STATUSES: readonly PayoutStatus[] = (
  Object.keys(PHASES_OF_STATUS) as PayoutStatus[]
).filter((status) => (ledgerEffect(status, 1, 0).get("available") ?? 0) < 0);
