import { z } from "zod";

// The charges the operator collects for the state on what moves through the service (issue 46,
// item 4): VAT on the service's fees and the stamp duty on electronic transfers, each posted to its
// own liability account (`vat_payable`, `stamp_duty_payable`) in the posting that takes the fee.
// Pure and in integer kobo: the rounding rule is the fees' (half up, per posting; docs/ledger.md).

/** A charge's kind, in the one order they are listed everywhere. */
export type ChargeKind = "vat" | "stamp_duty";
export const CHARGE_KINDS: readonly ChargeKind[] = ["vat", "stamp_duty"];

/**
 * The operator's schedule: VAT in basis points of a fee, and a flat stamp duty on transfers of at
 * least a threshold, charged on money out (payouts, refunds, settlements) and/or on credits (the
 * receiver-side levy, off by default).
 */
export interface ChargeSchedule {
  vatBasisPoints: number;
  stampDutyKobo: number;
  stampDutyThresholdKobo: number;
  stampDutyOnPayouts: boolean;
  stampDutyOnCredits: boolean;
}

/** A new installation's schedule: nothing charged until the operator sets it (`vas charges set`). */
export const NO_CHARGES: ChargeSchedule = {
  vatBasisPoints: 0,
  stampDutyKobo: 5_000,
  stampDutyThresholdKobo: 1_000_000,
  stampDutyOnPayouts: false,
  stampDutyOnCredits: false,
};

/**
 * The rates in force in Nigeria (docs/ledger.md cites each): VAT 7.5 % (VAT Act as amended by the
 * Finance Acts 2019/2020); stamp duty NGN 50 on electronic transfers of NGN 10,000 and more, charged
 * to the sender (Nigeria Tax Act 2025, from 2026).
 */
export const DEFAULT_CHARGES: ChargeSchedule = {
  vatBasisPoints: 750,
  stampDutyKobo: 5_000,
  stampDutyThresholdKobo: 1_000_000,
  stampDutyOnPayouts: true,
  stampDutyOnCredits: false,
};

/** What one posting charges, in kobo. */
export interface Charges {
  vat: number;
  stampDuty: number;
}

export const NO_CHARGE: Charges = { vat: 0, stampDuty: 0 };

/** A charge as the API, webhooks and CSV show it. */
export interface ChargeLine {
  kind: ChargeKind;
  amount: number;
}

/**
 * The `charges` of a transaction, a payout or a settlement in the API, webhooks and exports: its
 * VAT and stamp duty, in that order, each only when not 0 (`[]` when none).
 */
export const chargeLinesSchema = z
  .array(
    z.strictObject({
      kind: z.enum(CHARGE_KINDS as ["vat", "stamp_duty"]).meta({
        description: "`vat`: VAT on the fee; `stamp_duty`: the stamp duty on the transfer.",
      }),
      amount: z
        .int()
        .min(1)
        .meta({ description: "Integer kobo (NGN 1 = 100 kobo).", examples: [188] }),
    }),
  )
  .meta({
    description:
      "The charges collected for the state with the fee, each on its own line in this order: `vat`, then `stamp_duty`; `[]` when none.",
  });

/** A refused schedule: the message says what to fix. */
export class ChargeScheduleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChargeScheduleError";
  }
}

/** Throws ChargeScheduleError unless the schedule is one the postings can apply. */
export function checkChargeSchedule(schedule: ChargeSchedule): void {
  const { vatBasisPoints, stampDutyKobo, stampDutyThresholdKobo } = schedule;
  if (!Number.isInteger(vatBasisPoints) || vatBasisPoints < 0 || vatBasisPoints > 10_000)
    throw new ChargeScheduleError("VAT must be from 0 to 100 percent");
  if (!Number.isSafeInteger(stampDutyKobo) || stampDutyKobo < 0)
    throw new ChargeScheduleError("the stamp duty must be a whole number of kobo, 0 or more");
  if (!Number.isSafeInteger(stampDutyThresholdKobo) || stampDutyThresholdKobo < 1)
    throw new ChargeScheduleError("the stamp duty's threshold must be a whole number of kobo, 1 or more");
  // A credit of the threshold must hold its stamp duty: a charge never exceeds what it is taken from.
  if (stampDutyKobo > stampDutyThresholdKobo)
    throw new ChargeScheduleError("the stamp duty cannot be more than its threshold");
}

/** VAT on a fee of `fee` kobo: fee × basis points / 10000, rounded half up to a whole kobo. */
export function vatOn(fee: number, vatBasisPoints: number): number {
  if (!Number.isSafeInteger(fee) || fee < 0) throw new RangeError(`fee ${fee} is not whole kobo`);
  return Number((BigInt(fee) * BigInt(vatBasisPoints) + 5_000n) / 10_000n);
}

/** The stamp duty on a transfer of `amount` kobo, out (a payout) or in (a credit). */
export function stampDutyOn(amount: number, schedule: ChargeSchedule, direction: "out" | "in"): number {
  const applies = direction === "out" ? schedule.stampDutyOnPayouts : schedule.stampDutyOnCredits;
  return applies && amount >= schedule.stampDutyThresholdKobo ? schedule.stampDutyKobo : 0;
}

/** A payout's charges: VAT on its fee, and the stamp duty on its amount. */
export const payoutCharges = (amount: number, fee: number, schedule: ChargeSchedule): Charges => ({
  vat: vatOn(fee, schedule.vatBasisPoints),
  stampDuty: stampDutyOn(amount, schedule, "out"),
});

/**
 * A credit's fee and charges, taken from the credit itself: VAT on the fee and, when the operator
 * turned on the receiver-side levy, the stamp duty. They never exceed the credit: with a fee near
 * 100 % the fee is lowered to the largest whose fee, VAT and stamp duty fit (the taxes are exact).
 */
export function creditCharges(
  amount: number,
  fee: number,
  schedule: ChargeSchedule,
): { fee: number; charges: Charges } {
  const stampDuty = stampDutyOn(amount, schedule, "in");
  const budget = amount - stampDuty;
  let kept = fee;
  if (kept + vatOn(kept, schedule.vatBasisPoints) > budget) {
    // f + vat(f) rises with f: start from the exact bound and step down to the first that fits.
    kept = Math.min(kept, Math.floor((budget * 10_000) / (10_000 + schedule.vatBasisPoints)));
    while (kept > 0 && kept + vatOn(kept, schedule.vatBasisPoints) > budget) kept--;
    while (kept < fee && kept + 1 + vatOn(kept + 1, schedule.vatBasisPoints) <= budget) kept++;
  }
  return { fee: kept, charges: { vat: vatOn(kept, schedule.vatBasisPoints), stampDuty } };
}

/** What the charges come to. */
export const chargesTotal = (charges: Charges) => charges.vat + charges.stampDuty;

/** The charges as lines, in the fixed order (vat, stamp_duty), leaving out those that are 0: `[]` when none. */
export function chargeLines(charges: Charges): ChargeLine[] {
  const lines: ChargeLine[] = [];
  if (charges.vat > 0) lines.push({ kind: "vat", amount: charges.vat });
  if (charges.stampDuty > 0) lines.push({ kind: "stamp_duty", amount: charges.stampDuty });
  return lines;
}
