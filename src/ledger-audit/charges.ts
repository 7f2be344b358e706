import { type Clock, isoNow } from "../clock.js";
import { validationFailed } from "../errors.js";
import { type ChargeSchedule, ChargeScheduleError, checkChargeSchedule } from "../ledger/charges.js";
import { chargeSums, readChargeSchedule, writeChargeSchedule } from "../storage/charge-repository.js";
import type { Executor } from "../storage/executor.js";

// The operator's side of the charges (issue 46, item 4): the schedule, what to remit for a month
// (every business's charge postings, summed) and a business's monthly statement of what it was
// charged. Both are read from the entries of the charges' liability accounts, so they agree with
// the ledger to the kobo by construction (`vas ledger verify` proves those balances).

export { ChargeScheduleError };

/** The schedule in force. */
export const chargeSchedule = (db: Executor): Promise<ChargeSchedule> => readChargeSchedule(db);

/** Sets the schedule (checked: ChargeScheduleError says what to fix); postings from now on charge by it. */
export async function setChargeSchedule(db: Executor, schedule: ChargeSchedule, now: string): Promise<void> {
  checkChargeSchedule(schedule);
  await writeChargeSchedule(db, schedule, now);
}

/** Africa/Lagos is UTC+1 all year: its months start at 23:00 UTC the day before. */
const LAGOS_OFFSET_MS = 60 * 60_000;

/** The instants a month in Africa/Lagos (`YYYY-MM`) spans, [from, to), or undefined for no such month. */
export function lagosMonthWindow(month: string): { from: string; to: string } | undefined {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) return undefined;
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  const at = (y: number, m: number) => new Date(Date.UTC(y, m, 1) - LAGOS_OFFSET_MS).toISOString();
  return { from: at(year, index), to: at(year, index + 1) };
}

/** One business's charges in a month: VAT and stamp duty, each on credits and on payouts. */
export interface BusinessCharges {
  businessId: string;
  vat: { credits: number; payouts: number; total: number };
  stampDuty: { credits: number; payouts: number; total: number };
  /** The ledger entries that charged it (a credit with VAT and stamp duty has two). */
  entries: number;
  total: number;
}

/** What the operator remits for a month: every business's charges, and their sums. */
export interface RemittanceReport {
  month: string;
  from: string;
  to: string;
  vat: number;
  stampDuty: number;
  total: number;
  businesses: BusinessCharges[];
}

function byBusiness(rows: Awaited<ReturnType<typeof chargeSums>>): BusinessCharges[] {
  const out = new Map<string, BusinessCharges>();
  for (const row of rows) {
    const entry = out.get(row.businessId) ?? {
      businessId: row.businessId,
      vat: { credits: 0, payouts: 0, total: 0 },
      stampDuty: { credits: 0, payouts: 0, total: 0 },
      entries: 0,
      total: 0,
    };
    const kind = row.kind === "vat_payable" ? entry.vat : entry.stampDuty;
    if (row.source === "credit") kind.credits += row.amount;
    else kind.payouts += row.amount;
    kind.total += row.amount;
    entry.total += row.amount;
    entry.entries += row.postings;
    out.set(row.businessId, entry);
  }
  return [...out.values()];
}

/** The remittance report of `month` (`YYYY-MM`, Africa/Lagos): undefined for a month that is not one. */
export async function remittanceReport(
  db: Executor,
  month: string,
  businessId?: string,
): Promise<RemittanceReport | undefined> {
  const window = lagosMonthWindow(month);
  if (!window) return undefined;
  const businesses = byBusiness(await chargeSums(db, window, businessId));
  const vat = businesses.reduce((sum, b) => sum + b.vat.total, 0);
  const stampDuty = businesses.reduce((sum, b) => sum + b.stampDuty.total, 0);
  return { month, ...window, vat, stampDuty, total: vat + stampDuty, businesses };
}

/** A business's statement of `month`: what it was charged (all zeros in a month without any). */
export async function monthlyStatement(
  db: Executor,
  businessId: string,
  month: string,
): Promise<(BusinessCharges & { month: string; from: string; to: string }) | undefined> {
  const report = await remittanceReport(db, month, businessId);
  if (!report) return undefined;
  const { from, to } = report;
  const empty: BusinessCharges = {
    businessId,
    vat: { credits: 0, payouts: 0, total: 0 },
    stampDuty: { credits: 0, payouts: 0, total: 0 },
    entries: 0,
    total: 0,
  };
  return { month, from, to, ...(report.businesses[0] ?? empty) };
}

/** The charges for the fronts that have no database of their own (the console, the dashboard). */
export class ChargesService {
  constructor(
    private readonly db: Executor,
    private readonly now: Clock = Date.now,
  ) {}

  schedule(): Promise<ChargeSchedule> {
    return chargeSchedule(this.db);
  }

  /** Sets the schedule: 400 saying what to fix when the postings could not apply it. */
  async set(schedule: ChargeSchedule): Promise<void> {
    try {
      await setChargeSchedule(this.db, schedule, isoNow(this.now));
    } catch (error) {
      if (error instanceof ChargeScheduleError) throw validationFailed(error.message);
      throw error;
    }
  }

  /** The remittance report of a month (`YYYY-MM`); 400 for a month that is not one. */
  async report(month: string): Promise<RemittanceReport> {
    const report = await remittanceReport(this.db, month);
    if (!report) throw validationFailed("Month must be a month, like 2026-11");
    return report;
  }

  /** A business's statement of a month; 400 for a month that is not one. */
  async statement(businessId: string, month: string) {
    const statement = await monthlyStatement(this.db, businessId, month);
    if (!statement) throw validationFailed("Month must be a month, like 2026-11");
    return statement;
  }
}
