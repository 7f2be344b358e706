import type { Executor } from "./executor.js";

// What the payout tracker (payouts/payout-tracker.ts) reads and writes: which pending payouts
// are due to be asked about, a check taken by one process, and when the next one is due.

/** Pending payouts the bank is due to be asked about, oldest first. */
export function duePayouts(db: Executor, now: string, limit: number) {
  return db
    .selectFrom("payouts")
    .selectAll()
    .where("status", "=", "pending")
    .where("next_check_at", "<=", now)
    .orderBy("next_check_at")
    .limit(limit)
    .execute();
}

/**
 * Takes a due payout for one check: moves its next check to `until` if it is still `seen` (no
 * other process took it meanwhile). True when this process has it.
 */
export async function claimCheck(db: Executor, id: string, seen: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable("payouts")
    .set({ next_check_at: until })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where("next_check_at", "=", seen)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * After a check that left the payout pending: when to ask next, and whether the bank has it (when
 * it was submitted, the first time the bank answered), given in the domain's names.
 */
export async function scheduleCheck(
  db: Executor,
  id: string,
  next: {
    nextCheckAt: string;
    checks: number;
    submittedAt?: string;
    sessionId?: string;
    nipCodes?: string;
    attentionAt?: string;
  },
): Promise<void> {
  await db
    .updateTable("payouts")
    .set({
      next_check_at: next.nextCheckAt,
      checks: next.checks,
      // The query builder skips undefined: left as they are.
      submitted_at: next.submittedAt,
      session_id: next.sessionId,
      nip_codes: next.nipCodes,
      attention_at: next.attentionAt,
    })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .execute();
}

/** Pending payouts created before `before`: stuck, for the metrics and the console. */
export async function stuckPayouts(db: Executor, before: string, limit: number) {
  return db
    .selectFrom("payouts")
    .selectAll()
    .where("status", "=", "pending")
    .where("created_at", "<", before)
    .orderBy("created_at")
    .limit(limit)
    .execute();
}
