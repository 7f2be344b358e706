import { sql } from "kysely";
import type { ChargeSchedule } from "../ledger/charges.js";
import type { Executor } from "./executor.js";
import { chargeScheduleOf } from "./transfer-writes.js";

// The operator's charges schedule (one row, migration 0043) and what the charges' liability
// accounts received, read from their entries: the remittance report and a business's statement
// are sums of the month's charge postings, never a second bookkeeping.

/** The schedule in force (transfers read it in their look-up; money out and the CLI here). */
export async function readChargeSchedule(db: Executor): Promise<ChargeSchedule> {
  const row = await db
    .selectFrom("charge_schedule")
    .select([
      "vat_basis_points as charge_vat_basis_points",
      "stamp_duty_kobo as charge_stamp_duty_kobo",
      "stamp_duty_threshold_kobo as charge_stamp_duty_threshold_kobo",
      "stamp_duty_on_payouts as charge_stamp_duty_on_payouts",
      "stamp_duty_on_credits as charge_stamp_duty_on_credits",
    ])
    .where("id", "=", 1)
    .executeTakeFirstOrThrow();
  return chargeScheduleOf(row);
}

/** Replaces the schedule: postings from now on charge by it; recorded ones keep theirs. */
export async function writeChargeSchedule(
  db: Executor,
  schedule: ChargeSchedule,
  now: string,
): Promise<void> {
  await db
    .updateTable("charge_schedule")
    .set({
      vat_basis_points: schedule.vatBasisPoints,
      stamp_duty_kobo: schedule.stampDutyKobo,
      stamp_duty_threshold_kobo: schedule.stampDutyThresholdKobo,
      stamp_duty_on_payouts: schedule.stampDutyOnPayouts ? 1 : 0,
      stamp_duty_on_credits: schedule.stampDutyOnCredits ? 1 : 0,
      updated_at: now,
    })
    .where("id", "=", 1)
    .execute();
}

/** What one business's charge accounts received in a window, by kind and by what posted it. */
export interface ChargeSums {
  businessId: string;
  kind: "vat_payable" | "stamp_duty_payable";
  /** `credit`: a transaction's posting; `payout`: a payout's (its post, the only phase that charges). */
  source: "credit" | "payout";
  amount: number;
  postings: number;
}

/**
 * The sums of the entries on the charges' liability accounts recorded in [from, to), per business,
 * kind and source (a transaction's id starts `txn_`, a payout posting's `pst_`): each account's
 * entries are read by its (ledger account, time) index.
 */
export async function chargeSums(
  db: Executor,
  window: { from: string; to: string },
  businessId?: string,
): Promise<ChargeSums[]> {
  let query = db
    .selectFrom("ledger_accounts as l")
    .innerJoin("ledger_entries as e", "e.ledger_account_id", "l.id")
    .select([
      "l.business_id as businessId",
      "l.kind as kind",
      sql<"credit" | "payout">`case when e.transaction_id like 'txn_%' then 'credit' else 'payout' end`.as(
        "source",
      ),
      sql<number>`sum(e.amount)`.as("amount"),
      sql<number>`count(*)`.as("postings"),
    ])
    .where("l.kind", "in", ["vat_payable", "stamp_duty_payable"])
    .where("e.created_at", ">=", window.from)
    .where("e.created_at", "<", window.to)
    .groupBy(["l.business_id", "l.kind", sql`3`])
    .orderBy("l.business_id")
    .orderBy("l.kind", "desc");
  if (businessId !== undefined) query = query.where("l.business_id", "=", businessId);
  const rows = await query.execute();
  return rows.map((row) => ({
    businessId: row.businessId,
    kind: row.kind as ChargeSums["kind"],
    source: row.source,
    amount: Number(row.amount),
    postings: Number(row.postings),
  }));
}
