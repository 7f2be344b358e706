import type { Insertable } from "kysely";
import type { Business, BusinessesTable, VerificationEventsTable, VerificationStatus } from "./schema.js";
import { type Executor, hasRowLocks } from "./transactions.js";

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

export async function insertVerificationEvent(db: Executor, row: VerificationEventsTable): Promise<void> {
  await db.insertInto("verification_events").values(row).execute();
}

/** The business's verification history, oldest first. */
export function listVerificationEvents(db: Executor, businessId: string): Promise<VerificationEventsTable[]> {
  return db
    .selectFrom("verification_events")
    .selectAll()
    .where("business_id", "=", businessId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/**
 * Counts one more account for the business and returns its ordinal. The row lock this takes
 * on PostgreSQL orders account creation within a business, which keeps ordinals dense.
 */
export async function nextAccountOrdinal(db: Executor, businessId: string): Promise<number> {
  const row = await db
    .updateTable("businesses")
    .set((eb) => ({ account_count: eb("account_count", "+", 1) }))
    .where("id", "=", businessId)
    .returning("account_count")
    .executeTakeFirstOrThrow();
  return row.account_count;
}

/**
 * Makes the writers of one business take turns for the rest of the transaction: on PostgreSQL
 * the business row is locked (SELECT ... FOR UPDATE); on SQLite, whose write transactions begin
 * IMMEDIATE and so already run one at a time, nothing is needed.
 */
export async function lockBusinessForWrites(db: Executor, businessId: string): Promise<void> {
  if (!hasRowLocks(db)) return;
  await db.selectFrom("businesses").select("id").where("id", "=", businessId).forUpdate().execute();
}

/** The business's fee on inbound transfers. */
export async function findFeeSchedule(
  db: Executor,
  businessId: string,
): Promise<{ basisPoints: number; capKobo: number | null } | undefined> {
  const row = await db
    .selectFrom("businesses")
    .select(["fee_basis_points", "fee_cap_kobo"])
    .where("id", "=", businessId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    basisPoints: Number(row.fee_basis_points),
    capKobo: row.fee_cap_kobo === null ? null : Number(row.fee_cap_kobo),
  };
}

/** Sets the business's fee; false when there is no such business. */
export async function updateFeeSchedule(
  db: Executor,
  businessId: string,
  schedule: { basisPoints: number; capKobo: number | null },
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("businesses")
    .set({ fee_basis_points: schedule.basisPoints, fee_cap_kobo: schedule.capKobo, updated_at: now })
    .where("id", "=", businessId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
