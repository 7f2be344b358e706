import type { Insertable, Updateable } from "kysely";
import type { VerificationEvent, VerificationStatus } from "../core/business-states.js";
import type { Executor } from "./executor.js";
import type { Business, BusinessesTable } from "./schema.js";

export async function insertBusiness(db: Executor, row: Insertable<BusinessesTable>): Promise<void> {
  await db.insertInto("businesses").values(row).execute();
}

export function findBusiness(db: Executor, id: string): Promise<Business | undefined> {
  return db.selectFrom("businesses").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listBusinesses(db: Executor): Promise<Business[]> {
  return db.selectFrom("businesses").selectAll().orderBy("created_at").orderBy("id").execute();
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
