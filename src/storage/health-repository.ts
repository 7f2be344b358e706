import type { Executor } from "./executor.js";

/** Rewrites the one probe row: succeeds only when the database takes (and commits) a write. */
export async function probeWrite(db: Executor, now: string): Promise<void> {
  await db
    .insertInto("health_probe")
    .values({ id: 1, checked_at: now })
    .onConflict((oc) => oc.column("id").doUpdateSet({ checked_at: now }))
    .execute();
}
