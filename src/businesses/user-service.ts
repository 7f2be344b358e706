import type { Clock } from "../clock.js";
import type { Actor } from "../core/actor.js";
import type { UserRecord, UserRole } from "../core/people.js";
import { emailSchema } from "../core/validation.js";
import { AppError, ErrorCode } from "../errors.js";
import type { Storage } from "../storage/database.js";
import { writeTransaction } from "../storage/transactions.js";
import {
  businessUsers,
  emailsOfUsers,
  findUserByEmail,
  insertActorAudit,
  insertAudit,
  insertUser,
  recentAudit,
  revokeUserSessions,
  updateUser,
} from "../storage/user-repository.js";
import { checkPassword, decoyHash, hashPassword, passwordMatches } from "./passwords.js";
import { passwordSubject, SignInAttempts, type TrustedDevice } from "./sign-in-attempts.js";
import {
  invalidCredentials,
  newUserRecord,
  requirePassword,
  requireUser,
  userAudit,
} from "./user-records.js";
import { type ActivityEntry, parseEmail, type SignInOrigin, toUser, type User } from "./users.js";

export interface UserServiceOptions {
  storage: Storage;
  now?: Clock;
}

/**
 * The people who sign in: a business's members (sign-ups.ts and team.ts make them) and operators.
 * Passwords are argon2id hashes; a TOTP secret is sealed by the master key; repeated failures
 * pause sign-in; every sign-in, failure and credential change is in the audit log.
 */
export class UserService {
  private readonly now: Clock;
  private readonly attempts: SignInAttempts;

  constructor(private readonly options: UserServiceOptions) {
    this.now = options.now ?? Date.now;
    this.attempts = new SignInAttempts(options.storage.db, this.now);
  }

  /** Creates an operator (the CLI). */
  async createOperator(emailText: string, password: string): Promise<User> {
    const email = parseEmail(emailText);
    checkPassword(password, [email]);
    if (await findUserByEmail(this.options.storage.db, "operator", email)) {
      throw new AppError(ErrorCode.CONFLICT, 409, `an operator with email ${email} exists`);
    }
    const row = newUserRecord("operator", email, await hashPassword(password), this.isoNow());
    await writeTransaction(this.options.storage, async (trx) => {
      await insertUser(trx, row);
      await insertAudit(trx, this.audit(row, "operator.created", { email }));
    });
    return toUser(row);
  }

  /**
   * Checks an email and password for the role. The guess is counted before the password is
   * checked (see SignInAttempts): against the device when it signed in as this user before,
   * otherwise against the email, known or not. Unknown emails take as long as wrong passwords
   * and get the same answers, the pause included. The caller asks for the TOTP code next when
   * `totpEnabled`.
   */
  async signIn(
    role: UserRole,
    emailText: string,
    password: string,
    device?: TrustedDevice,
    from: SignInOrigin = {},
  ): Promise<User> {
    const email = typeof emailText === "string" ? emailText.trim().toLowerCase() : "";
    const db = this.options.storage.db;
    const row = email === "" ? undefined : await findUserByEmail(db, role, email);
    const subject = passwordSubject(role, email, row && device?.userId === row.id ? device : undefined);
    await this.attempts.count(subject);
    if (!row) {
      await passwordMatches(await decoyHash(), password);
      // What was typed is kept only when it is an email: a password typed in the wrong field
      // must not land in the audit log.
      const typed = emailSchema.safeParse(email).success ? email : "(not an email)";
      await insertAudit(
        db,
        this.audit(undefined, "sign_in.failed", { email: typed, role, reason: "unknown email", ...from }),
      );
      throw invalidCredentials();
    }
    if (!(await passwordMatches(row.passwordHash, password))) {
      await insertAudit(db, this.audit(row, "sign_in.failed", { reason: "wrong password", ...from }));
      throw invalidCredentials();
    }
    await this.attempts.clear(subject);
    if (row.disabledAt !== null) {
      // Said only after the right password: a disabled account is not revealed to a guess.
      await insertAudit(db, this.audit(row, "sign_in.failed", { reason: "disabled", ...from }));
      throw new AppError(
        ErrorCode.FORBIDDEN,
        403,
        "This account is disabled. An operator admin can enable it again from the console.",
      );
    }
    await insertAudit(
      db,
      this.audit(row, row.totpEnabledAt ? "sign_in.password_accepted" : "sign_in.succeeded", { ...from }),
    );
    return toUser(row);
  }

  /** Changes the password (the current one is required) and ends the user's other sessions. */
  async changePassword(userId: string, current: string, next: string, keepSession?: string): Promise<void> {
    const row = await requireUser(this.options.storage.db, userId);
    await requirePassword(this.options.storage.db, row, current, "password.change_failed", this.isoNow());
    checkPassword(next, [row.email]);
    const passwordHash = await hashPassword(next);
    await writeTransaction(this.options.storage, async (trx) => {
      const now = this.isoNow();
      await updateUser(trx, row.id, { passwordHash, passwordChangedAt: now });
      await revokeUserSessions(trx, row.id, now, keepSession);
      await insertAudit(trx, this.audit(row, "password.changed", {}));
    });
  }

  /**
   * The audit log's newest entries a user may read: a business user, their business's (every
   * user's sign-ins and failures, key and webhook changes); an operator, their own doing.
   */
  async activity(user: User, limit = 30): Promise<ActivityEntry[]> {
    const scope = user.businessId === null ? { actorId: user.id } : { businessId: user.businessId };
    const rows = await recentAudit(this.options.storage.db, scope, limit);
    return rows.map((row) => ({
      at: row.createdAt,
      action: row.action,
      actorType: row.actorType,
      actorEmail: row.actorEmail,
      detail: row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : {},
    }));
  }

  /** Forgets sign-in attempts whose window ended a day ago (the prune-sessions job). */
  pruneSignInAttempts(): Promise<number> {
    return this.attempts.prune();
  }

  /** A business's user by email (the CLI's resets); none is a 404. */
  async businessUserByEmail(emailText: string): Promise<User> {
    const row = await findUserByEmail(this.options.storage.db, "business", parseEmail(emailText));
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 404, `no business user has email ${emailText.trim()}`);
    return toUser(row);
  }

  /** A business's users (the console's business page). */
  async businessUsers(businessId: string): Promise<User[]> {
    return (await businessUsers(this.options.storage.db, businessId)).map(toUser);
  }

  async getUser(userId: string): Promise<User> {
    return toUser(await requireUser(this.options.storage.db, userId));
  }

  /** The emails of these users, by id (one who was removed is absent). */
  emailsOf(ids: readonly string[]): Promise<Map<string, string>> {
    return emailsOfUsers(this.options.storage.db, [...new Set(ids)]);
  }

  /** Records what a user did to a business (key changes, for example) in the audit log. */
  async record(actor: Actor, businessId: string | null, action: string, detail: Record<string, unknown>) {
    await insertActorAudit(this.options.storage.db, { actor, businessId, action, detail, at: this.isoNow() });
  }

  private audit(row: UserRecord | undefined, action: string, detail: Record<string, unknown>) {
    return userAudit(row, action, detail, this.isoNow());
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}
