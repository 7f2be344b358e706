import type { Executor } from "./executor.js";

// The dashboard's and the console's server-side sessions: started, read with their user on each
// request, touched, revoked, and removed once ended.

/** A new session given in the domain's names (businesses/sessions.ts's NewSession fits it). */
export async function insertSession(
  db: Executor,
  session: { id: string; userId: string; verified: number; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto("dashboard_sessions")
    .values({
      id: session.id,
      user_id: session.userId,
      verified: session.verified,
      created_at: session.createdAt,
      last_seen_at: session.createdAt,
      expires_at: session.expiresAt,
      revoked_at: null,
      reveal_sealed: null,
    })
    .execute();
}

/**
 * The session with its user and their business's settings, if it is neither revoked nor past its
 * absolute end: the columns under the names of businesses/sessions.ts's LiveSession.
 */
export function findLiveSession(db: Executor, id: string, now: string) {
  return (
    db
      .selectFrom("dashboard_sessions as s")
      .innerJoin("users as u", "u.id", "s.user_id")
      .leftJoin("businesses as b", "b.id", "u.business_id")
      .select([
        "b.time_zone as timeZone",
        "b.require_two_factor as requireTwoFactor",
        "s.id",
        "s.user_id as userId",
        "s.verified",
        "s.last_seen_at as lastSeenAt",
        "u.role",
        "u.business_id as businessId",
        "u.email",
        "u.member_role as memberRole",
        "u.operator_role as operatorRole",
        "u.totp_enabled_at as totpEnabledAt",
      ])
      .where("s.id", "=", id)
      // A disabled user's sessions end the moment they are disabled.
      .where("u.disabled_at", "is", null)
      .where("s.revoked_at", "is", null)
      .where("s.expires_at", ">", now)
      .executeTakeFirst()
  );
}

export async function touchSession(db: Executor, id: string, now: string): Promise<void> {
  await db.updateTable("dashboard_sessions").set({ last_seen_at: now }).where("id", "=", id).execute();
}

export async function revokeSession(db: Executor, id: string, now: string): Promise<void> {
  await db
    .updateTable("dashboard_sessions")
    .set({ revoked_at: now })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .execute();
}

/**
 * Deletes up to `batch` sessions that ended before `before` (revoked, or past their absolute
 * end); returns how many. Idle sessions end by their last use, checked when read; they are
 * removed once past their absolute end.
 */
export async function deleteEndedSessions(db: Executor, before: string, batch: number): Promise<number> {
  const ended = await db
    .selectFrom("dashboard_sessions")
    .select("id")
    .where((eb) => eb.or([eb("expires_at", "<", before), eb("revoked_at", "<", before)]))
    .limit(batch)
    .execute();
  if (ended.length === 0) return 0;
  await db
    .deleteFrom("dashboard_sessions")
    .where(
      "id",
      "in",
      ended.map((row) => row.id),
    )
    .execute();
  return ended.length;
}
