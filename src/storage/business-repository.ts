import type { Updateable } from "kysely";
import type { BusinessRecord } from "../core/business-record.js";
import type { VerificationEvent, VerificationStatus } from "../core/business-states.js";
import type { Executor } from "./executor.js";
import type { BusinessesTable } from "./schema.js";

// A business as the domain reads it, in its names (core/business-record.ts; the columns aliased).
const BUSINESS = [
  "id",
  "name",
  "verification_status as verificationStatus",
  "account_count as accountCount",
  "fee_basis_points as feeBasisPoints",
  "fee_cap_kobo as feeCapKobo",
  "payout_fee_tiers as payoutFeeTiers",
  "payouts_enabled as payoutsEnabled",
  "payout_limit_kobo as payoutLimitKobo",
  "payout_daily_limit_kobo as payoutDailyLimitKobo",
  "time_zone as timeZone",
  "require_two_factor as requireTwoFactor",
  "created_at as createdAt",
  "updated_at as updatedAt",
] as const;

export async function insertBusiness(db: Executor, business: BusinessRecord): Promise<void> {
  await db
    .insertInto("businesses")
    .values({
      id: business.id,
      name: business.name,
      verification_status: business.verificationStatus,
      account_count: business.accountCount,
      fee_basis_points: business.feeBasisPoints,
      fee_cap_kobo: business.feeCapKobo,
      payout_fee_tiers: business.payoutFeeTiers,
      payouts_enabled: business.payoutsEnabled,
      payout_limit_kobo: business.payoutLimitKobo,
      payout_daily_limit_kobo: business.payoutDailyLimitKobo,
      time_zone: business.timeZone,
      require_two_factor: business.requireTwoFactor,
      created_at: business.createdAt,
      updated_at: business.updatedAt,
    })
    .execute();
}

export function findBusiness(db: Executor, id: string): Promise<BusinessRecord | undefined> {
  return db.selectFrom("businesses").select(BUSINESS).where("id", "=", id).executeTakeFirst();
}

export function listBusinesses(db: Executor): Promise<BusinessRecord[]> {
  return db.selectFrom("businesses").select(BUSINESS).orderBy("created_at").orderBy("id").execute();
}

/**
 * Moves the business from `from` to `to`, only if it is still at `from` (a concurrent change
 * makes this return false instead of overwriting it).
 */
export async function updateVerificationStatus(
  db: Executor,
  id: string,
  from: VerificationStatus,
  to: VerificationStatus,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("businesses")
    .set({ verification_status: to, updated_at: now })
    .where("id", "=", id)
    .where("verification_status", "=", from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Sets the time zone the business's pages show times in. */
export async function updateTimeZone(db: Executor, id: string, timeZone: string, now: string): Promise<void> {
  await db
    .updateTable("businesses")
    .set({ time_zone: timeZone, updated_at: now })
    .where("id", "=", id)
    .execute();
}

export async function insertVerificationEvent(db: Executor, event: VerificationEvent): Promise<void> {
  await db
    .insertInto("verification_events")
    .values({
      id: event.id,
      business_id: event.businessId,
      from_status: event.fromStatus,
      to_status: event.toStatus,
      reason: event.reason,
      actor_type: event.actorType,
      actor_id: event.actorId,
      created_at: event.createdAt,
    })
    .execute();
}

/** The business's verification history, oldest first. */
export function listVerificationEvents(db: Executor, businessId: string): Promise<VerificationEvent[]> {
  return db
    .selectFrom("verification_events")
    .select([
      "id",
      "business_id as businessId",
      "from_status as fromStatus",
      "to_status as toStatus",
      "reason",
      "actor_type as actorType",
      "actor_id as actorId",
      "created_at as createdAt",
    ])
    .where("business_id", "=", businessId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/** Sets the business's payout fee tiers (JSON; null: the default); false when there is no such business. */
export const updatePayoutFeeTiers = (db: Executor, businessId: string, tiers: string | null, now: string) =>
  updateBusiness(db, businessId, { payout_fee_tiers: tiers }, now);

/** The business's payout fee tiers as stored (JSON, or null for the default); undefined: no such business. */
export async function readPayoutFeeTiers(
  db: Executor,
  businessId: string,
): Promise<string | null | undefined> {
  const row = await db
    .selectFrom("businesses")
    .select("payout_fee_tiers")
    .where("id", "=", businessId)
    .executeTakeFirst();
  return row?.payout_fee_tiers;
}

/** Sets the business's fee; false when there is no such business. */
export const updateFeeSchedule = (
  db: Executor,
  businessId: string,
  schedule: { basisPoints: number; capKobo: number | null },
  now: string,
) =>
  updateBusiness(
    db,
    businessId,
    { fee_basis_points: schedule.basisPoints, fee_cap_kobo: schedule.capKobo },
    now,
  );

/** Sets an operator's setting of the business; false when there is no such business. */
async function updateBusiness(
  db: Executor,
  businessId: string,
  fields: Pick<Updateable<BusinessesTable>, "fee_basis_points" | "fee_cap_kobo" | "payout_fee_tiers">,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("businesses")
    .set({ ...fields, updated_at: now })
    .where("id", "=", businessId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
