import type { Executor } from "./executor.js";

// A user's single-use credentials besides the password: "forgot password" links (only their
// token's hash) and recovery codes (only their HMACs).

/**
 * A new reset link for the user, given in the domain's names (businesses/password-resets.ts's
 * ResetLink fits it); every earlier one still good is voided.
 */
export async function insertPasswordReset(
  db: Executor,
  link: { tokenHash: string; userId: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .updateTable("password_resets")
    .set({ used_at: link.createdAt })
    .where("user_id", "=", link.userId)
    .where("used_at", "is", null)
    .execute();
  await db
    .insertInto("password_resets")
    .values({
      token_hash: link.tokenHash,
      user_id: link.userId,
      created_at: link.createdAt,
      expires_at: link.expiresAt,
      used_at: null,
    })
    .execute();
}

/** Takes a reset link: the user it was for, when it was still good at `now` (then it is used up). */
export async function takePasswordReset(
  db: Executor,
  tokenHash: string,
  now: string,
): Promise<string | undefined> {
  const taken = await db
    .updateTable("password_resets")
    .set({ used_at: now })
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("user_id")
    .executeTakeFirst();
  return taken?.user_id;
}

/** The user a reset link is for, while it is still good at `now` (the form is shown only then). */
export async function liveResetUser(
  db: Executor,
  tokenHash: string,
  now: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("password_resets")
    .select("user_id")
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return row?.user_id;
}

/** The user's recovery codes, replaced by these (the old ones, used or not, are gone). */
export async function replaceRecoveryCodes(
  db: Executor,
  userId: string,
  hashes: string[],
  now: string,
): Promise<void> {
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  if (hashes.length === 0) return;
  await db
    .insertInto("recovery_codes")
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now, used_at: null })))
    .execute();
}

/** Uses a recovery code up: false when the user has no such code left. */
export async function useRecoveryCode(
  db: Executor,
  userId: string,
  hash: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable("recovery_codes")
    .set({ used_at: now })
    .where("user_id", "=", userId)
    .where("code_hash", "=", hash)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** How many of the user's recovery codes are left. */
export async function recoveryCodesLeft(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom("recovery_codes")
    .select(({ fn }) => fn.countAll<string | number>().as("left"))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.left);
}
