import { randomUUID } from "node:crypto";
import type { Clock } from "../clock.js";
import type { Actor } from "../core/actor.js";
import { emailSchema } from "../core/validation.js";
import { AppError, ErrorCode, validationFailed } from "../errors.js";
import type { Storage } from "../storage/database.js";
import { isUniqueViolation } from "../storage/errors.js";
import type { UserRole } from "../storage/schema-people.js";
import { writeTransaction } from "../storage/transactions.js";
import {
  findUser,
  findUserByEmail,
  insertActorAudit,
  insertAudit,
  insertUser,
  recentAudit,
  revokeUserSessions,
  type UserRow,
  updateUser,
  useTotpStep,
} from "../storage/user-repository.js";
import type { BusinessService } from "./business-service.js";
import { checkPassword, decoyHash, hashPassword, passwordMatches } from "./passwords.js";
import type { SecretBox } from "./secret-box.js";
import { codeSubject, passwordSubject, SignInAttempts, type TrustedDevice } from "./sign-in-attempts.js";
import { acceptedTotpStep, newTotpSecret, totpUri } from "./totp.js";
import { type ActivityEntry, parseEmail, toUser, type User } from "./users.js";

export interface UserServiceOptions {
  storage: Storage;
  box: SecretBox;
  businesses: BusinessService;
  now?: Clock;
}

const invalidCredentials = () =>
  new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The email or password is not right");
const invalidCode = () => new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "That code is not right");
const emailTaken = () =>
  new AppError(ErrorCode.CONFLICT, 409, "An account with this email exists: sign in instead");
const wrongPassword = () =>
  new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The current password is not right");

const totpContext = (userId: string) => `users:${userId}:totp`;

/**
 * The people who sign in: a business's users (sign-up creates the business) and operators.
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

  /** Creates the business (not_submitted, no keys yet) and its first user. */
  async signUp(input: { businessName: string; email: string; password: string }): Promise<User> {
    const email = parseEmail(input.email);
    checkPassword(input.password, [email, input.businessName]);
    if (await findUserByEmail(this.options.storage.db, "business", email)) throw emailTaken();
    const passwordHash = await hashPassword(input.password);
    let row: UserRow | undefined;
    // The business and its user in one transaction: a sign-up that loses a race for the email
    // (the unique index decides) leaves no business behind.
    try {
      await this.options.businesses.registerBusiness(input.businessName, async (trx, business) => {
        row = this.newUser("business", business.id, email, passwordHash);
        await insertUser(trx, row);
        await insertAudit(trx, this.audit(row, "user.signed_up", { email }));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw emailTaken();
      throw error;
    }
    return toUser(row as UserRow);
  }

  /** Creates an operator (the CLI). */
  async createOperator(emailText: string, password: string): Promise<User> {
    const email = parseEmail(emailText);
    checkPassword(password, [email]);
    if (await findUserByEmail(this.options.storage.db, "operator", email)) {
      throw new AppError(ErrorCode.CONFLICT, 409, `an operator with email ${email} exists`);
    }
    const row = this.newUser("operator", null, email, await hashPassword(password));
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
  async signIn(role: UserRole, emailText: string, password: string, device?: TrustedDevice): Promise<User> {
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
        this.audit(undefined, "sign_in.failed", { email: typed, role, reason: "unknown email" }),
      );
      throw invalidCredentials();
    }
    if (!(await passwordMatches(row.password_hash, password))) {
      await insertAudit(db, this.audit(row, "sign_in.failed", { reason: "wrong password" }));
      throw invalidCredentials();
    }
    await this.attempts.clear(subject);
    await insertAudit(
      db,
      this.audit(row, row.totp_enabled_at ? "sign_in.password_accepted" : "sign_in.succeeded", {}),
    );
    return toUser(row);
  }

  /**
   * The second factor: a current TOTP code. Guesses count against the user before they are
   * checked, and a step is marked used by one conditional write, so of any number of
   * concurrent sign-ins with one code exactly one succeeds.
   */
  async verifySignInCode(userId: string, code: string): Promise<User> {
    const row = await this.requireUser(userId);
    await this.spendCode(row, code, "sign_in.succeeded", "sign_in.failed", { factor: "totp" });
    return toUser(row);
  }

  /**
   * Before moving money or where it goes (a payout, a refund, API payouts on, the settlement
   * account): the user's current TOTP code when they have two-factor sign-in on, by the same
   * rules as signing in (counted guesses, each step used once); nothing when they do not.
   */
  async confirmWithCode(userId: string, code: string | undefined, action: string): Promise<void> {
    const row = await this.requireUser(userId);
    if (!row.totp_enabled_at) return;
    await this.spendCode(row, code ?? "", `${action}.confirmed`, `${action}.code_failed`, {});
  }

  private async spendCode(
    row: UserRow,
    code: string,
    succeeded: string,
    failed: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    const subject = codeSubject(row.id);
    await this.attempts.count(subject);
    const secret = row.totp_enabled_at ? this.totpSecret(row) : undefined;
    const step =
      secret === undefined
        ? undefined
        : acceptedTotpStep(secret, String(code), this.now(), row.totp_last_step);
    const used =
      step !== undefined &&
      (await writeTransaction(this.options.storage, async (trx) => {
        if (!(await useTotpStep(trx, row.id, step))) return false;
        await this.attempts.clear(subject, trx);
        await insertAudit(trx, this.audit(row, succeeded, detail));
        return true;
      }));
    if (!used) {
      await insertAudit(this.options.storage.db, this.audit(row, failed, { reason: "wrong code" }));
      throw invalidCode();
    }
  }

  /** Changes the password (the current one is required) and ends the user's other sessions. */
  async changePassword(userId: string, current: string, next: string, keepSession?: string): Promise<void> {
    const row = await this.requireUser(userId);
    await this.requirePassword(row, current, "password.change_failed");
    checkPassword(next, [row.email]);
    const passwordHash = await hashPassword(next);
    await writeTransaction(this.options.storage, async (trx) => {
      const now = this.isoNow();
      await updateUser(trx, row.id, { password_hash: passwordHash, password_changed_at: now });
      await revokeUserSessions(trx, row.id, now, keepSession);
      await insertAudit(trx, this.audit(row, "password.changed", {}));
    });
  }

  /** Starts two-factor enrolment: a new secret (kept sealed, not yet enabled) and its URI. */
  async beginTotp(userId: string): Promise<{ secret: string; uri: string }> {
    const row = await this.requireUser(userId);
    if (row.totp_enabled_at) throw new AppError(ErrorCode.CONFLICT, 409, "Two-factor sign-in is already on");
    const secret = newTotpSecret();
    await updateUser(this.options.storage.db, row.id, {
      totp_secret_ciphertext: this.options.box.seal(secret, totpContext(row.id)),
      totp_last_step: null,
    });
    return { secret, uri: totpUri(secret, row.email) };
  }

  /** The secret of an enrolment started but not confirmed, to show again (undefined: none). */
  async pendingTotp(userId: string): Promise<{ secret: string; uri: string } | undefined> {
    const row = await this.requireUser(userId);
    const secret = row.totp_enabled_at ? undefined : this.totpSecret(row);
    return secret === undefined ? undefined : { secret, uri: totpUri(secret, row.email) };
  }

  /**
   * Turns two-factor sign-in on, once a code from the new secret proves the app has it and the
   * current password proves the person is the user (a stolen session cannot enrol its own
   * authenticator); the user's other sessions end.
   */
  async confirmTotp(userId: string, code: string, password: string, keepSession?: string): Promise<void> {
    const row = await this.requireUser(userId);
    const secret = this.totpSecret(row);
    if (!secret || row.totp_enabled_at) throw validationFailed("start two-factor sign-in first");
    await this.requirePassword(row, password, "totp.enable_failed");
    const step = acceptedTotpStep(secret, String(code), this.now(), null);
    if (step === undefined) throw invalidCode();
    await writeTransaction(this.options.storage, async (trx) => {
      const now = this.isoNow();
      await updateUser(trx, row.id, { totp_enabled_at: now, totp_last_step: step });
      await revokeUserSessions(trx, row.id, now, keepSession);
      await insertAudit(trx, this.audit(row, "totp.enabled", {}));
    });
  }

  /** Turns two-factor sign-in off (the password is required); the user's other sessions end. */
  async disableTotp(userId: string, password: string, keepSession?: string): Promise<void> {
    const row = await this.requireUser(userId);
    await this.requirePassword(row, password, "totp.disable_failed");
    await writeTransaction(this.options.storage, async (trx) => {
      const now = this.isoNow();
      await updateUser(trx, row.id, {
        totp_secret_ciphertext: null,
        totp_enabled_at: null,
        totp_last_step: null,
      });
      await revokeUserSessions(trx, row.id, now, keepSession);
      await insertAudit(trx, this.audit(row, "totp.disabled", {}));
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
      at: row.created_at,
      action: row.action,
      actorType: row.actor_type,
      actorEmail: row.actor_email,
      detail: row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : {},
    }));
  }

  /** Forgets sign-in attempts whose window ended a day ago (the prune-sessions job). */
  pruneSignInAttempts(): Promise<number> {
    return this.attempts.prune();
  }

  async getUser(userId: string): Promise<User> {
    return toUser(await this.requireUser(userId));
  }

  /** Records what a user did to a business (key changes, for example) in the audit log. */
  async record(actor: Actor, businessId: string | null, action: string, detail: Record<string, unknown>) {
    await insertActorAudit(this.options.storage.db, { actor, businessId, action, detail, at: this.isoNow() });
  }

  private newUser(role: UserRole, businessId: string | null, email: string, passwordHash: string): UserRow {
    const now = this.isoNow();
    return {
      id: randomUUID(),
      role,
      business_id: businessId,
      email,
      password_hash: passwordHash,
      totp_secret_ciphertext: null,
      totp_enabled_at: null,
      totp_last_step: null,
      password_changed_at: now,
      created_at: now,
    };
  }

  private async requireUser(userId: string): Promise<UserRow> {
    const row = await findUser(this.options.storage.db, userId);
    if (!row) throw invalidCredentials();
    return row;
  }

  /**
   * The current password, asked for before a sensitive change; a wrong one is audited, so that
   * someone guessing from a session left open shows in the activity list.
   */
  private async requirePassword(row: UserRow, password: string, failure: string): Promise<void> {
    if (await passwordMatches(row.password_hash, password)) return;
    await insertAudit(this.options.storage.db, this.audit(row, failure, {}));
    throw wrongPassword();
  }

  private totpSecret(row: UserRow): string | undefined {
    return row.totp_secret_ciphertext === null
      ? undefined
      : this.options.box.open(row.totp_secret_ciphertext, totpContext(row.id));
  }

  private audit(row: UserRow | undefined, action: string, detail: Record<string, unknown>) {
    return {
      id: randomUUID(),
      business_id: row?.business_id ?? null,
      actor_type: row ? (row.role === "operator" ? "operator" : "user") : "anonymous",
      actor_id: row?.id ?? null,
      action,
      detail: JSON.stringify(detail),
      created_at: this.isoNow(),
    };
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}
