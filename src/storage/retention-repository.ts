import type { Executor } from "./executor.js";

/**
 * Removes up to `batch` events recorded before `cutoff`, with their deliveries and attempts
 * (attempts first: they refer to deliveries, which refer to events). Returns how many events
 * went. Small batches keep each write transaction short on a busy database.
 */
export async function pruneEventsBefore(db: Executor, cutoff: string, batch: number): Promise<number> {
  const old = await db
    .selectFrom("events")
    .select("id")
    .where("created_at", "<", cutoff)
    .orderBy("created_at")
    .limit(batch)
    .execute();
  const ids = old.map((row) => row.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom("webhook_attempts").where("event_id", "in", ids).execute();
  await db.deleteFrom("webhook_deliveries").where("event_id", "in", ids).execute();
  await db.deleteFrom("events").where("id", "in", ids).execute();
  return ids.length;
}

/** The business's lowest remaining event sequence (older ones were pruned), or undefined. */
export async function lowestEventSequence(db: Executor, businessId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("events")
    .select("sequence")
    .where("business_id", "=", businessId)
    .orderBy("sequence")
    .limit(1)
    .executeTakeFirst();
  return row?.sequence;
}
