// A payout's fee: a flat amount by the payout's size, in tiers set per business by the operator
// (`vas business set-payout-fee <businessId> --tiers "500000:1000,5000000:2500,*:5000"`). All in
// integer kobo. Pure: the core of the ledger, read by the domain and the CLI alike.

import { type ChargeSchedule, NO_CHARGES, vatOn } from "./charges.js";

/** One tier: payouts up to `upTo` kobo (inclusive; null: any larger one) cost `fee` kobo. */
export interface PayoutFeeTier {
  upTo: number | null;
  fee: number;
}

/**
 * The default, Paystack's: up to NGN 5,000 costs NGN 10, up to NGN 50,000 costs NGN 25, more
 * costs NGN 50.
 */
export const DEFAULT_PAYOUT_FEE_TIERS: readonly PayoutFeeTier[] = [
  { upTo: 500_000, fee: 1_000 },
  { upTo: 5_000_000, fee: 2_500 },
  { upTo: null, fee: 5_000 },
];

/**
 * The CBN's caps on a NIP transfer's fee (Guide to Charges by Banks, Other Financial and Non-Bank
 * Financial Institutions, effective 1 January 2020): NGN 10 up to NGN 5,000, NGN 25 up to NGN
 * 50,000, NGN 50 above. A business's tiers may not charge above them unless the operator says so
 * (`--above-cbn-caps`); the operator may set other caps (PAYOUT_FEE_CAPS).
 */
export const CBN_PAYOUT_FEE_CAPS: readonly PayoutFeeTier[] = [
  { upTo: 500_000, fee: 1_000 },
  { upTo: 5_000_000, fee: 2_500 },
  { upTo: null, fee: 5_000 },
];

/**
 * Why `tiers` charge above `caps` somewhere, or undefined when they never do: a tier covers the
 * payouts above the previous tier's limit up to its own, and the caps rise with the amount, so
 * its fee must be within the cap of its smallest payout.
 */
export function aboveCaps(
  tiers: readonly PayoutFeeTier[],
  caps: readonly PayoutFeeTier[],
): string | undefined {
  let smallest = 1;
  for (const tier of tiers) {
    const cap = payoutFee(caps, smallest);
    if (tier.fee > cap) {
      const range =
        tier.upTo === null ? `above ${smallest - 1} kobo` : `from ${smallest} to ${tier.upTo} kobo`;
      return `the fee of ${tier.fee} kobo on payouts ${range} is above the cap of ${cap} kobo on a payout of ${smallest} kobo`;
    }
    if (tier.upTo !== null) smallest = tier.upTo + 1;
  }
  return undefined;
}

/** At most this many tiers: a schedule is read on every payout and shown in the dashboard. */
export const MAX_PAYOUT_FEE_TIERS = 10;

const KOBO = /^(0|[1-9]\d{0,15})$/;

/** A refused schedule: the message says what to fix. */
export class PayoutFeeTiersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PayoutFeeTiersError";
  }
}

function kobo(text: string, what: string): number {
  if (!KOBO.test(text))
    throw new PayoutFeeTiersError(`${what} must be a whole number of kobo, got "${text}"`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new PayoutFeeTiersError(`${what} is too large: ${text}`);
  return value;
}

/**
 * Reads `upTo:fee,upTo:fee,...,*:fee` (kobo): limits strictly rising, each fee a whole number of
 * kobo, and a last tier `*` for every larger payout. Throws PayoutFeeTiersError saying what to fix.
 */
export function parsePayoutFeeTiers(text: string): PayoutFeeTier[] {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length > MAX_PAYOUT_FEE_TIERS)
    throw new PayoutFeeTiersError(`at most ${MAX_PAYOUT_FEE_TIERS} tiers, got ${parts.length}`);
  const tiers = parts.map((part, i): PayoutFeeTier => {
    const match = /^([^:]+):([^:]+)$/.exec(part);
    if (!match)
      throw new PayoutFeeTiersError(`tier ${i + 1} must be upTo:fee in kobo (or *:fee), got "${part}"`);
    const [, limit = "", fee = ""] = match;
    const upTo = limit.trim() === "*" ? null : kobo(limit.trim(), `tier ${i + 1}'s limit`);
    return { upTo, fee: kobo(fee.trim(), `tier ${i + 1}'s fee`) };
  });
  checkPayoutFeeTiers(tiers);
  return tiers;
}

/** Throws PayoutFeeTiersError unless the tiers are a schedule `payoutFee` can read. */
export function checkPayoutFeeTiers(tiers: readonly PayoutFeeTier[]): void {
  if (tiers.length === 0) throw new PayoutFeeTiersError("at least one tier is needed: *:fee");
  tiers.forEach((tier, i) => {
    const last = i === tiers.length - 1;
    if (last !== (tier.upTo === null))
      throw new PayoutFeeTiersError(
        last ? "the last tier must be *:fee, for every larger payout" : "only the last tier may be *",
      );
    const previous = tiers[i - 1]?.upTo;
    if (tier.upTo !== null && (tier.upTo < 1 || (previous != null && tier.upTo <= previous)))
      throw new PayoutFeeTiersError("tier limits must rise from 1 kobo: each larger than the one before");
    if (!Number.isSafeInteger(tier.fee) || tier.fee < 0)
      throw new PayoutFeeTiersError("a fee is a whole number of kobo, 0 or more");
  });
}

/** The fee on a payout of `amount` kobo: the first tier whose limit it does not exceed. */
export function payoutFee(tiers: readonly PayoutFeeTier[], amount: number): number {
  for (const tier of tiers) if (tier.upTo === null || amount <= tier.upTo) return tier.fee;
  throw new PayoutFeeTiersError("the schedule has no tier for every larger payout");
}

/** The schedule as the CLI takes it: `500000:1000,5000000:2500,*:5000`. */
export const formatPayoutFeeTiers = (tiers: readonly PayoutFeeTier[]) =>
  tiers.map(({ upTo, fee }) => `${upTo ?? "*"}:${fee}`).join(",");

/**
 * The largest payout whose amount, fee and charges (VAT on the fee, the stamp duty from its
 * threshold) together fit in `budget` kobo (0 when none does): a settlement of the whole available
 * balance pays its own. What a payout costs beyond its amount is constant on each tier, and on each
 * side of the stamp duty's threshold within it: each such range's best is the smaller of its limit
 * and the budget less that cost, if that is still in the range; the answer is the best of them.
 */
export function largestPayoutWithin(
  tiers: readonly PayoutFeeTier[],
  budget: number,
  charges: ChargeSchedule = NO_CHARGES,
): number {
  let best = 0;
  let floor = 1;
  for (const tier of tiers) {
    const top = tier.upTo ?? Number.MAX_SAFE_INTEGER;
    const extra = tier.fee + vatOn(tier.fee, charges.vatBasisPoints);
    const threshold = charges.stampDutyOnPayouts ? charges.stampDutyThresholdKobo : Number.MAX_SAFE_INTEGER;
    const ranges = [
      { from: floor, to: Math.min(top, threshold - 1), cost: extra },
      { from: Math.max(floor, threshold), to: top, cost: extra + charges.stampDutyKobo },
    ];
    for (const range of ranges) {
      if (range.from > range.to) continue;
      const candidate = Math.min(range.to, budget - range.cost);
      if (candidate >= range.from && candidate > best) best = candidate;
    }
    if (tier.upTo !== null) floor = tier.upTo + 1;
  }
  return best;
}
