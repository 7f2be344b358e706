import { type Clock, isoNow } from "../clock.js";
import { emailField } from "../core/form-fields.js";
import type { UserRole } from "../core/people.js";
import type { MailNotices } from "../mail/notices.js";
import { insertPasswordReset, liveResetUser, takePasswordReset } from "../storage/credential-repository.js";
import type { Storage } from "../storage/database.js";
import { writeTransaction } from "../storage/transactions.js";
import {
  findUser,
  findUserByEmail,
  insertActorAudit,
  revokeUserSessions,
  updateUser,
} from "../storage/user-repository.js";
import { linkGone, linkHash, newLinkToken } from "./links.js";
import { checkPassword, hashPassword } from "./passwords.js";
import { actorOf } from "./users.js";

// "Forgot password" (issue 28, item 4): a single-use link mailed to the address, good for 30
// minutes, kept only as its hash; using it sets the new password and ends every session of the
// user. The answer to a request is the same, and as quick, whether or not the address has an
// account (issue 43): whatever depends on that is done after the answer.

/** How long a reset link works. */
export const RESET_LINK_MINUTES = 30;

export interface PasswordResetsOptions {
  storage: Storage;
  notices: MailNotices;
  now?: Clock;
}

/**
 * A new link that sets a user's password (a reset, an operator's invitation), told to storage:
 * its token's hash only, whose it is, and until when it works (once).
 */
export interface ResetLink {
  tokenHash: string;
  userId: string;
  createdAt: string;
  expiresAt: string;
}

/** Where work done after the answer says that it failed (the request's log). */
export interface AfterAnswerLog {
  error(details: object, message: string): void;
}

/** A link that is no good: ask again. */
const linkExpired = () => linkGone(`Ask for a new one: each works once, for ${RESET_LINK_MINUTES} minutes.`);

export class PasswordResets {
  private readonly now: Clock;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: PasswordResetsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Asks for a reset link for the `role`'s user with this email: a 400 for a value that is no
   * email address; otherwise it answers at once, having read nothing, and the lookup, the link
   * and its mail (when the address has an account) are done after the answer. So the answer
   * takes the same time, and does the same work, whether or not the address has an account.
   * `base` is the surface the link opens (/dashboard or /admin); `log` hears of work that failed.
   */
  async request(role: UserRole, emailText: string, base: string, log?: AfterAnswerLog): Promise<void> {
    const email = emailField("Email")(emailText);
    // Started on the next turn of the event loop: the caller's answer is on its way first.
    const work = new Promise<void>((started) => setImmediate(started))
      .then(() => this.mailLink(role, email, base))
      .catch((error: unknown) => log?.error({ err: error }, "a password reset link could not be made"))
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  /** Waits for the links being made after their answers (a graceful shutdown, tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Mails a reset link to the `role`'s user with this email, when there is one. */
  private async mailLink(role: UserRole, email: string, base: string): Promise<void> {
    const { storage, notices } = this.options;
    const row = await findUserByEmail(storage.db, role, email);
    if (!row) return;
    const { token, hash } = newLinkToken();
    const now = this.now();
    await writeTransaction(storage, async (trx) => {
      const link: ResetLink = {
        tokenHash: hash,
        userId: row.id,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + RESET_LINK_MINUTES * 60_000).toISOString(),
      };
      await insertPasswordReset(trx, link);
      await insertActorAudit(trx, {
        actor: actorOf(row),
        businessId: row.businessId,
        action: "password.reset_requested",
        detail: {},
        at: new Date(now).toISOString(),
      });
    });
    const link = `${notices.publicUrl}${base}/reset?token=${token}`;
    await notices.passwordReset({ email: row.email, businessId: row.businessId }, link, RESET_LINK_MINUTES);
  }

  /** Whether the link's token is still good (its form is shown only then). */
  async isLive(token: string): Promise<boolean> {
    return (await liveResetUser(this.options.storage.db, linkHash(token), isoNow(this.now))) !== undefined;
  }

  /** Sets the new password with a good link, uses the link up and ends every session of the user. */
  async reset(token: string, password: string): Promise<void> {
    const { storage } = this.options;
    const tokenHash = linkHash(token);
    const userId = await liveResetUser(storage.db, tokenHash, isoNow(this.now));
    const row = userId === undefined ? undefined : await findUser(storage.db, userId);
    if (!row) throw linkExpired();
    checkPassword(password, [row.email]);
    const passwordHash = await hashPassword(password);
    await writeTransaction(storage, async (trx) => {
      const now = isoNow(this.now);
      // Taken under the write: two tabs sending the form use the link once.
      if ((await takePasswordReset(trx, tokenHash, now)) !== row.id) throw linkExpired();
      await updateUser(trx, row.id, { passwordHash, passwordChangedAt: now });
      await revokeUserSessions(trx, row.id, now);
      await insertActorAudit(trx, {
        actor: actorOf(row),
        businessId: row.businessId,
        action: "password.reset",
        detail: {},
        at: now,
      });
    });
  }
}
