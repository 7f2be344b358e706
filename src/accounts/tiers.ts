import { lagosDate } from "../core/lagos-time.js";
import { formatNaira } from "../ledger/kobo.js";

// KYC tiers (issue 46, item 5): what an account may receive follows how its holder was
// identified. The CBN's three-tiered KYC framework (circular FPR/DIR/GEN/CIR/01/017, 2013;
// revised 2016) and its December 2023 circular on tiered accounts set, for tier 1, a single
// deposit of at most NGN 50,000 and a cumulative balance of at most NGN 300,000; for tier 2,
// NGN 100,000 and NGN 500,000; tier 3 has none. An account needs a BVN or a NIN (tier 1); with
// both it is tier 2. The operator may set other values (TIER1_LIMITS ..., docs/deploy.md).
//
// A virtual account holds no balance of its own (what it receives is the business's), so the
// CBN's cumulative balance is read as the most the account may receive in total. The circulars
// set no daily figure; the default daily limit is the balance cap itself (the most the account
// could ever hold, so the most it may take in one day), the CBN's own number rather than a
// factor of ours (docs/api.md, "Identity tiers").

/** An account's KYC tier. */
export type Tier = 1 | 2 | 3;
export const TIERS: readonly Tier[] = [1, 2, 3];

/** A tier's limits in kobo; null: none. */
export interface TierLimit {
  /** The largest single credit. */
  single: number | null;
  /** The most received in one Africa/Lagos day. */
  daily: number | null;
  /** The most received in total. */
  total: number | null;
}

export type TierLimits = Readonly<Record<Tier, TierLimit>>;

/** The CBN's values (above), the defaults of TIER1_LIMITS, TIER2_LIMITS and TIER3_LIMITS. */
export const CBN_TIER_LIMITS: TierLimits = {
  1: { single: 5_000_000, daily: 30_000_000, total: 30_000_000 },
  2: { single: 10_000_000, daily: 50_000_000, total: 50_000_000 },
  3: { single: null, daily: null, total: null },
};

/** No limits at all (a test's or an operator's choice). */
export const NO_TIER_LIMITS: TierLimits = {
  1: { single: null, daily: null, total: null },
  2: { single: null, daily: null, total: null },
  3: { single: null, daily: null, total: null },
};

/** The tier the identities an account holds give it: one of a BVN or a NIN, 1; both, 2. */
export const identityTier = (identities: number): Tier => (identities >= 2 ? 2 : 1);

/** A stored tier as a Tier (a value outside 1 to 3 is read as the nearest). */
export const tierOf = (stored: number): Tier => (stored >= 3 ? 3 : stored <= 1 ? 1 : 2);

/** Which of a tier's limits a credit would break, and how it is told. */
export type TierLimitBroken = "TIER_SINGLE_LIMIT" | "TIER_DAILY_LIMIT" | "TIER_TOTAL_LIMIT";

/** What an account has received, as its row holds it under the transfer's lock. */
export interface Received {
  total: number;
  /** The Africa/Lagos day `onDay` counts (null: nothing yet). */
  day: string | null;
  onDay: number;
}

/**
 * The first of the tier's limits that `amount` would break (single, then daily, then total),
 * with its message; undefined when it breaks none. `today` is the Africa/Lagos day of the credit.
 */
export function tierLimitBroken(
  limits: TierLimits,
  tier: Tier,
  amount: number,
  received: Received,
  today: string,
): { code: TierLimitBroken; message: string } | undefined {
  const limit = limits[tier];
  if (limit.single !== null && amount > limit.single) {
    return {
      code: "TIER_SINGLE_LIMIT",
      message: `${amount} kobo is above the largest single credit of a tier ${tier} account, ${limit.single} kobo (${formatNaira(limit.single)})`,
    };
  }
  const onDay = received.day === today ? received.onDay : 0;
  if (limit.daily !== null && onDay + amount > limit.daily) {
    return {
      code: "TIER_DAILY_LIMIT",
      message: `${amount} kobo would carry what the account received today past ${limit.daily} kobo (${formatNaira(limit.daily)}), the most a tier ${tier} account may receive in a day`,
    };
  }
  if (limit.total !== null && received.total + amount > limit.total) {
    return {
      code: "TIER_TOTAL_LIMIT",
      message: `${amount} kobo would carry what the account received in total past ${limit.total} kobo (${formatNaira(limit.total)}), the most a tier ${tier} account may receive`,
    };
  }
  return undefined;
}

/** The account's day total after a credit of `amount` on `today`. */
export const receivedOnDay = (received: Pick<Received, "day" | "onDay">, amount: number, today: string) =>
  (received.day === today ? received.onDay : 0) + amount;

/**
 * A credit of `amount` at `now` to an account whose row says its tier (`storedTier`) and what it
 * received: the limit it would break, if any, and the account's day (Africa/Lagos) and day total
 * once credited. The transfer's one call into the tiers.
 */
export function tierCheck(
  limits: TierLimits,
  storedTier: number,
  amount: number,
  received: Received,
  now: number,
): { broken: { code: TierLimitBroken; message: string } | undefined; day: string; onDay: number } {
  const day = lagosDate(now);
  return {
    broken: tierLimitBroken(limits, tierOf(storedTier), amount, received, day),
    day,
    onDay: receivedOnDay(received, amount, day),
  };
}

/**
 * A tier's limits as an operator writes them: `single,daily,total`, each a whole number of kobo
 * or `none`. Undefined when the text is not that.
 */
export function parseTierLimit(text: string): TierLimit | undefined {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length !== 3) return undefined;
  const values = parts.map((part) =>
    part === "none" ? null : /^\d{1,15}$/.test(part) ? Number(part) : undefined,
  );
  if (values.some((value) => value === undefined)) return undefined;
  const [single, daily, total] = values as Array<number | null>;
  return { single: single ?? null, daily: daily ?? null, total: total ?? null };
}
