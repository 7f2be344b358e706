import type { PayoutStatus, SettlementSchedule } from "../core/api-types.js";
import type { Executor } from "./executor.js";

// Settlement: a business's account, schedule and reserve, and each settlement with its payout.

// A business's terms as the domain reads them, in its names (the columns aliased).
const TERMS = [
  "bank_code as bankCode",
  "bank_name as bankName",
  "account_number as accountNumber",
  "account_name as accountName",
  "account_set_at as accountSetAt",
  "schedule",
  "daily_at as dailyAt",
  "reserve_kobo as reserveKobo",
] as const;

export function settlementTermsOf(db: Executor, businessId: string) {
  return db
    .selectFrom("settlement_terms")
    .select(TERMS)
    .where("business_id", "=", businessId)
    .executeTakeFirst();
}

/** A change of the business's settlement account, or of its schedule, in the domain's names. */
type SettlementTermsChange = { updatedAt: string } & (
  | { bankCode: string; bankName: string; accountNumber: string; accountName: string; accountSetAt: string }
  | { schedule: SettlementSchedule; dailyAt: string | null; reserveKobo: number }
);

/** The columns of a change: the one mapping of the terms' writes (the other columns left as they are). */
function termsColumns(change: SettlementTermsChange) {
  const columns =
    "bankCode" in change
      ? {
          bank_code: change.bankCode,
          bank_name: change.bankName,
          account_number: change.accountNumber,
          account_name: change.accountName,
          account_set_at: change.accountSetAt,
        }
      : { schedule: change.schedule, daily_at: change.dailyAt, reserve_kobo: change.reserveKobo };
  return { ...columns, updated_at: change.updatedAt };
}

/** The business's settlement account or schedule written (its row made when it has none). */
export async function writeSettlementTerms(
  db: Executor,
  businessId: string,
  change: SettlementTermsChange,
): Promise<void> {
  const changes = termsColumns(change);
  await db
    .insertInto("settlement_terms")
    .values({ business_id: businessId, schedule: "manual", reserve_kobo: 0, ...changes })
    .onConflict((conflict) => conflict.column("business_id").doUpdateSet(changes))
    .execute();
}

/** The businesses whose schedule settles by itself, with an account to settle to. */
export function scheduledSettlements(db: Executor) {
  return db
    .selectFrom("settlement_terms")
    .select(["business_id as businessId", "schedule", "daily_at as dailyAt"])
    .where("schedule", "in", ["daily", "instant"] satisfies SettlementSchedule[])
    .where("account_number", "is not", null)
    .execute();
}

/** Whether the business has a settlement for this day (its daily one). */
export async function settledForPeriod(db: Executor, businessId: string, period: string): Promise<boolean> {
  const row = await db
    .selectFrom("settlements")
    .select("id")
    .where("business_id", "=", businessId)
    .where("period", "=", period)
    .executeTakeFirst();
  return row !== undefined;
}

/** The last ordinal covered by the business's settlements that did not fail (0: none). */
export async function lastCoveredOrdinal(db: Executor, businessId: string): Promise<number> {
  const row = await db
    .selectFrom("settlements")
    .innerJoin("payouts", "payouts.id", "settlements.payout_id")
    .select((eb) => eb.fn.max("settlements.covered_through").as("through"))
    .where("settlements.business_id", "=", businessId)
    .where("payouts.status", "!=", "failed")
    .executeTakeFirst();
  return Number(row?.through ?? 0);
}

/** When the transaction with this ordinal was recorded (undefined: no such transaction). */
export async function recordedAtOrdinal(
  db: Executor,
  businessId: string,
  ordinal: number,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("transactions")
    .select("created_at")
    .where("business_id", "=", businessId)
    .where("ordinal", "=", ordinal)
    .executeTakeFirst();
  return row?.created_at;
}

// A settlement with what its payout says (the amount, the fee, where it went, its status), as
// the domain reads it, in its names (the columns aliased).
function withPayout(db: Executor) {
  return db
    .selectFrom("settlements")
    .innerJoin("payouts", "payouts.id", "settlements.payout_id")
    .select([
      "settlements.id",
      "settlements.payout_id as payoutId",
      "settlements.trigger",
      "settlements.covered_after as coveredAfter",
      "settlements.covered_through as coveredThrough",
      "settlements.transaction_count as transactionCount",
      "settlements.first_recorded_at as firstRecordedAt",
      "settlements.last_recorded_at as lastRecordedAt",
      "settlements.created_at as createdAt",
      "payouts.amount",
      "payouts.fee",
      "payouts.vat",
      "payouts.stamp_duty as stampDuty",
      "payouts.currency",
      "payouts.status",
      "payouts.failure_reason as failureReason",
      "payouts.session_id as sessionId",
      "payouts.bank_code as bankCode",
      "payouts.bank_name as bankName",
      "payouts.account_number as accountNumber",
      "payouts.account_name as accountName",
      "payouts.updated_at as updatedAt",
    ]);
}

export function findSettlement(db: Executor, businessId: string, id: string) {
  return withPayout(db)
    .where("settlements.business_id", "=", businessId)
    .where("settlements.id", "=", id)
    .executeTakeFirst();
}

export interface SettlementFilter {
  status?: PayoutStatus;
  from?: string;
  to?: string;
  sessionId?: string;
}

/** A page of the business's settlements, newest first, and how many the filter selects. */
export async function settlementPage(
  db: Executor,
  businessId: string,
  filter: SettlementFilter,
  offset: number,
  limit: number,
) {
  let query = withPayout(db).where("settlements.business_id", "=", businessId);
  if (filter.status !== undefined) query = query.where("payouts.status", "=", filter.status);
  if (filter.from !== undefined) query = query.where("settlements.created_at", ">=", filter.from);
  if (filter.to !== undefined) query = query.where("settlements.created_at", "<=", filter.to);
  if (filter.sessionId !== undefined) query = query.where("payouts.session_id", "=", filter.sessionId);
  const counted = await query
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .executeTakeFirstOrThrow();
  const total = Number(counted.total);
  const rows =
    offset < total
      ? await query
          .orderBy("settlements.created_at", "desc")
          .orderBy("settlements.id", "desc")
          .offset(offset)
          .limit(limit)
          .execute()
      : [];
  return { rows, total };
}
