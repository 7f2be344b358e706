// A business's fee on each inbound transfer: a percentage in basis points (hundredths of a
// percent), optionally capped, in integer kobo. The rounding rule (docs/ledger.md): the exact
// fee amount * bps / 10000 is rounded half up to a whole kobo, then capped. Computed in BigInt,
// so no amount and rate can lose precision, and never more than the amount itself.

/** A business's fee: basis points (0..10000) and an optional cap in kobo. */
export interface FeeSchedule {
  basisPoints: number;
  capKobo: number | null;
}

export const NO_FEE: FeeSchedule = { basisPoints: 0, capKobo: null };
export const MAX_BASIS_POINTS = 10_000;

/** The fee, in kobo, on a transfer of `amount` kobo. */
export function feeFor(amount: number, schedule: FeeSchedule): number {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`amount ${amount} is not whole kobo`);
  const { basisPoints, capKobo } = schedule;
  if (!Number.isInteger(basisPoints) || basisPoints < 0 || basisPoints > MAX_BASIS_POINTS) {
    throw new RangeError(`fee of ${basisPoints} basis points is outside 0..${MAX_BASIS_POINTS}`);
  }
  // Half up: floor((amount * bps + 5000) / 10000).
  const fee = Number((BigInt(amount) * BigInt(basisPoints) + 5_000n) / 10_000n);
  return capKobo === null ? fee : Math.min(fee, capKobo);
}

/**
 * A percentage as an operator types it ("1.5", "0.75", "2") in basis points, or undefined when
 * it is not a number from 0 to 100 with at most two decimal places. Parsed as text, never as a
 * float: "1.15" is exactly 115.
 */
export function parsePercent(text: string): number | undefined {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const basisPoints = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return basisPoints <= MAX_BASIS_POINTS ? basisPoints : undefined;
}

/** Basis points as a percentage for display: 150 -> "1.5". */
export function formatPercent(basisPoints: number): string {
  const whole = Math.floor(basisPoints / 100);
  const fraction = String(basisPoints % 100)
    .padStart(2, "0")
    .replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}
