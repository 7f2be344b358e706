import type { Selectable } from "kysely";
import type { PayoutStatus } from "../core/api-types.js";
import type { PayoutFilter, PayoutsCounted } from "../core/payouts-counted.js";
import type { RowLocks } from "../core/row-locks.js";
import type { Executor } from "./executor.js";
import type { ChargeScheduleTable } from "./schema-ledger.js";
import type { PayoutPhase, PayoutPostingsTable, PayoutsTable } from "./schema-payouts.js";
import { chargeScheduleOf } from "./transfer-writes.js";

// Payouts and their ledger postings, through the query builder on both dialects: what a payout's
// transaction reads under the business's ledger locks; its write is the ledger's port's
// (payout-writes.ts).

export type PayoutRow = Selectable<PayoutsTable>;
export type PayoutPostingRow = Selectable<PayoutPostingsTable>;

/** What a payout is checked against: the business's switch, limits and fee tiers (undefined: no such business). */
export async function payoutTermsOf(db: Executor, businessId: string) {
  return db
    .selectFrom("businesses")
    .select([
      "payouts_enabled",
      "payout_limit_kobo",
      "payout_daily_limit_kobo",
      "payout_fee_tiers",
      "verification_status",
    ])
    .where("id", "=", businessId)
    .executeTakeFirst();
}

/**
 * What lets a key send payouts, in one read: its business's API switch and the key's payout
 * addresses as stored (JSON; null: any, or no such key). Undefined when there is no such business.
 */
export async function payoutGateOf(db: Executor, businessId: string, keyId: string) {
  const row = await db
    .selectFrom("businesses")
    .leftJoin("api_keys", (join) => join.on("api_keys.id", "=", keyId))
    .select(["businesses.payouts_enabled", "api_keys.payout_ips"])
    .where("businesses.id", "=", businessId)
    .executeTakeFirst();
  return row && { apiPayouts: Number(row.payouts_enabled) === 1, payoutIps: row.payout_ips ?? null };
}

/**
 * The business's verification status and payout terms, its row taken for the rest of the
 * transaction: a change of either waits for the money moving under it, and money moved after the
 * change sees it. Undefined when there is no such business.
 */
export async function lockedBusiness(db: Executor, locks: RowLocks, businessId: string) {
  // The charges' schedule (one row) is read in the same statement, by scalar subqueries: the lock
  // stays on the business's row alone (one on the schedule's row would make every payout wait).
  const row = await locks
    .locking(
      db
        .selectFrom("businesses")
        .select((eb) => {
          const schedule = (column: keyof ChargeScheduleTable) =>
            eb.selectFrom("charge_schedule").select(column).where("charge_schedule.id", "=", 1);
          return [
            "verification_status",
            "payouts_enabled",
            "payout_limit_kobo",
            "payout_daily_limit_kobo",
            "payout_fee_tiers",
            schedule("vat_basis_points").as("charge_vat_basis_points"),
            schedule("stamp_duty_kobo").as("charge_stamp_duty_kobo"),
            schedule("stamp_duty_threshold_kobo").as("charge_stamp_duty_threshold_kobo"),
            schedule("stamp_duty_on_payouts").as("charge_stamp_duty_on_payouts"),
            schedule("stamp_duty_on_credits").as("charge_stamp_duty_on_credits"),
          ];
        })
        .where("businesses.id", "=", businessId),
    )
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    verification_status: verification,
    payouts_enabled,
    payout_limit_kobo,
    payout_daily_limit_kobo,
    payout_fee_tiers,
    ...charges
  } = row;
  return {
    verification,
    terms: { payouts_enabled, payout_limit_kobo, payout_daily_limit_kobo, payout_fee_tiers },
    // A subquery's value may be null to the types; the schedule's row always exists (0043).
    charges: chargeScheduleOf(charges as Parameters<typeof chargeScheduleOf>[0]),
  };
}

/** Turns API payouts on or off, and sets the limits (null: the defaults); false when there is no such business. */
export async function updatePayoutTerms(
  db: Executor,
  businessId: string,
  terms: Partial<
    Pick<PayoutsTermsColumns, "payouts_enabled" | "payout_limit_kobo" | "payout_daily_limit_kobo">
  >,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("businesses")
    .set({ ...terms, updated_at: now })
    .where("id", "=", businessId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

interface PayoutsTermsColumns {
  payouts_enabled: number;
  payout_limit_kobo: number | null;
  payout_daily_limit_kobo: number | null;
}

/** Kobo of the business's payouts created at or after `since`, of those `counted`. */
export async function payoutVolumeSince(
  db: Executor,
  businessId: string,
  since: string,
  counted: PayoutsCounted,
): Promise<number> {
  let query = db
    .selectFrom("payouts")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), eb.lit(0)).as("total"))
    .where("business_id", "=", businessId)
    .where("created_at", ">=", since)
    .where("status", "in", [...counted.statuses]);
  if (!counted.settlements) query = query.where("settlement_id", "is", null);
  return Number((await query.executeTakeFirstOrThrow()).total);
}

/** A phase's step: the database refuses a payout's second posting of one step. */
export const STEPS: Record<PayoutPhase, number> = { hold: 1, post: 2, void: 2, reversal: 3 };

/** Moves a payout from `from` to its next status; false when it was not at `from` (another process moved it). */
export async function movePayout(
  db: Executor,
  id: string,
  from: PayoutStatus,
  to: { status: PayoutStatus; failure_reason: string | null; updated_at: string },
): Promise<boolean> {
  const result = await db
    .updateTable("payouts")
    .set({ ...to, next_check_at: null })
    .where("id", "=", id)
    .where("status", "=", from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The payout with this id, the business's (undefined for another business's). */
export function findPayout(db: Executor, businessId: string, id: string) {
  return db
    .selectFrom("payouts")
    .selectAll()
    .where("id", "=", id)
    .where("business_id", "=", businessId)
    .executeTakeFirst();
}

/** The payout with this id, whoever's it is (the bank's notifications and the tracker). */
export function findPayoutById(db: Executor, id: string) {
  return db.selectFrom("payouts").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findPayoutByReference(db: Executor, businessId: string, reference: string) {
  return db
    .selectFrom("payouts")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("reference", "=", reference)
    .executeTakeFirst();
}

/** A page of the business's payouts (every business's: undefined), newest first, and how many the filter selects. */
export async function payoutPage(
  db: Executor,
  businessId: string | undefined,
  filter: PayoutFilter,
  offset: number,
  limit: number,
): Promise<{ rows: PayoutRow[]; total: number }> {
  let query = db.selectFrom("payouts");
  if (businessId !== undefined) query = query.where("business_id", "=", businessId);
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  if (filter.from !== undefined) query = query.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) query = query.where("created_at", "<=", filter.to);
  if (filter.sessionId !== undefined) query = query.where("session_id", "=", filter.sessionId);
  if (filter.attention) query = query.where("attention_at", "is not", null).where("status", "=", "pending");
  const counted = await query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow();
  const total = Number(counted.total);
  const rows =
    offset < total
      ? await query
          .selectAll()
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .offset(offset)
          .limit(limit)
          .execute()
      : [];
  return { rows, total };
}

/** The refunds of one of the business's transactions, newest first (the refund_of index). */
export function payoutsRefunding(db: Executor, businessId: string, transactionId: string) {
  return db
    .selectFrom("payouts")
    .selectAll()
    .where("refund_of", "=", transactionId)
    .where("business_id", "=", businessId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** The newest entry's time among these heads' last entries (undefined before any): one key lookup each. */
export async function latestEntryTime(
  db: Executor,
  heads: Iterable<{ id: string; entryCount: number }>,
): Promise<string | undefined> {
  const opened = [...heads].filter((head) => head.entryCount > 0);
  if (opened.length === 0) return undefined;
  const row = await db
    .selectFrom("ledger_entries")
    .select((eb) => eb.fn.max("created_at").as("latest"))
    .where((eb) =>
      eb.or(
        opened.map((head) =>
          eb.and([eb("ledger_account_id", "=", head.id), eb("sequence", "=", head.entryCount)]),
        ),
      ),
    )
    .executeTakeFirst();
  return row?.latest ?? undefined;
}

/** Kobo refunded of each of these transactions, counting refunds of `statuses` (absent: none). */
export async function refundedAmounts(
  db: Executor,
  transactionIds: readonly string[],
  statuses: readonly PayoutStatus[],
): Promise<Map<string, number>> {
  if (transactionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("payouts")
    .select((eb) => ["refund_of", eb.fn.sum<number>("amount").as("refunded")])
    .where("refund_of", "in", [...transactionIds])
    .where("status", "in", [...statuses])
    .groupBy("refund_of")
    .execute();
  return new Map(rows.map((row) => [row.refund_of as string, Number(row.refunded)]));
}

/** The unique key of a business's references (PostgreSQL names the index; SQLite the columns). */
export const PAYOUT_REFERENCE_KEY = {
  index: "payouts_business_reference_key",
  columns: "payouts.business_id, payouts.reference",
};
