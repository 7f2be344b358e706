import type { Executor } from "./executor.js";

/** The outcome of asking for one more attempt at a subject. */
export type AttemptClaim = { claimed: true; attempts: number } | { claimed: false; pausedUntil: string };

/**
 * Counts one attempt at `subject` before anything is checked, in one statement: the count
 * starts again once its window has ended; while `limit` attempts are counted in the window
 * nothing more is (and the answer says until when). The attempt that reaches the limit moves
 * the window's end to `windowEnd`, so a pause lasts the whole window after the last guess.
 * Concurrent claims from any number of processes are serialised by the row: at most `limit`
 * are claimed per window.
 */
export async function claimAttempt(
  db: Executor,
  subject: string,
  limit: number,
  now: string,
  windowEnd: string,
): Promise<AttemptClaim> {
  const claimed = await db
    .insertInto("sign_in_attempts")
    .values({ subject, attempts: 1, window_ends_at: windowEnd })
    .onConflict((oc) =>
      oc
        .column("subject")
        .doUpdateSet((eb) => {
          const ended = eb("sign_in_attempts.window_ends_at", "<=", now);
          const next = eb
            .case()
            .when(ended)
            .then(1)
            .else(eb("sign_in_attempts.attempts", "+", 1))
            .end();
          return {
            attempts: next,
            window_ends_at: eb
              .case()
              .when(ended)
              .then(windowEnd)
              .when(eb("sign_in_attempts.attempts", ">=", limit - 1))
              .then(windowEnd)
              .else(eb.ref("sign_in_attempts.window_ends_at"))
              .end(),
          };
        })
        .where((eb) =>
          eb.or([
            eb("sign_in_attempts.window_ends_at", "<=", now),
            eb("sign_in_attempts.attempts", "<", limit),
          ]),
        ),
    )
    .returning("attempts")
    .executeTakeFirst();
  if (claimed) return { claimed: true, attempts: claimed.attempts };
  const paused = await db
    .selectFrom("sign_in_attempts")
    .select("window_ends_at")
    .where("subject", "=", subject)
    .executeTakeFirst();
  return { claimed: false, pausedUntil: paused?.window_ends_at ?? windowEnd };
}

/** Forgets a subject's attempts (it proved itself). */
export async function clearAttempts(db: Executor, subject: string): Promise<void> {
  await db.deleteFrom("sign_in_attempts").where("subject", "=", subject).execute();
}

/** Deletes up to `batch` subjects whose window ended before `before`; returns how many. */
export async function deleteEndedAttempts(db: Executor, before: string, batch: number): Promise<number> {
  const ended = await db
    .selectFrom("sign_in_attempts")
    .select("subject")
    .where("window_ends_at", "<", before)
    .limit(batch)
    .execute();
  if (ended.length === 0) return 0;
  await db
    .deleteFrom("sign_in_attempts")
    .where(
      "subject",
      "in",
      ended.map((row) => row.subject),
    )
    .execute();
  return ended.length;
}
