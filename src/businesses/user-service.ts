import { randomUUID } from "node:crypto";
import { emailSchema } from "../accounts/validation.js";
import type { Clock } from "../clock.js";
import { AppError, ErrorCode, validationFailed } from "../errors.js";
import type { Storage } from "../storage/database.js";
import type { UserRole } from "../storage/schema.js";
import { writeTransaction } from "../storage/transactions.js";
import {
  countFailedLogin,
  findUser,
  findUserByEmail,
  insertAudit,
  insertUser,
  recentAudit,
  revokeUserSessions,
  type UserRow,
  updateUser,
} from "../storage/user-repository.js";
import { type Actor, actorId } from "./actor.js";
import type { BusinessService } from "./business-service.js";
import { checkPassword, decoyHash, hashPassword, passwordMatches } from "./passwords.js";
import type { SecretBox } from "./secret-box.js";
import { acceptedTotpStep, newTotpSecret, totpUri } from "./totp.js";

/** Consecutive failed sign-ins (passwords or codes) before sign-in is refused for a while. */
export const MAX_FAILED_SIGN_INS = 5;
/** How long sign-in is refused after that. */
export const LOCKOUT_MS = 15 * 60_000;

/** Someone who signs in, as the dashboard and the console see them (never the hash or the secret). */
export interface User {
  id: string;
  role: UserRole;
  businessId: string | null;
  email: string;
  totpEnabled: boolean;
}

/** One line of the audit log as its reader sees it: when, who (a user's email, or the kind of actor), what. */
export interface ActivityEntry {
  at: string;
  action: string;
  actorType: string;
  actorEmail: string | null;
  detail: Record<string, unknown>;
}

export interface UserServiceOptions {
  storage: Storage;
  box: SecretBox;
  businesses: BusinessService;
  now?: Clock;
}

const invalidCredentials = () =>
  new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The email or password is not right");
const invalidCode = () => new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "That code is not right");
const locked = (until: string) =>
  new AppError(
    ErrorCode.SIGN_IN_LOCKED,
    429,
    `Too many failed sign-ins: signing in is paused until ${until.slice(11, 16)} UTC`,
  );

const totpContext = (userId: string) => `users:${userId}:totp`;

const toUser = (row: UserRow): User => ({
  id: row.id,
  role: row.role,
  businessId: row.business_id,
  email: row.email,
  totpEnabled: row.totp_enabled_at !== null,
});

/** The actor a signed-in user acts as. */
export const actorOf = (user: Pick<User, "id" | "role">): Actor =>
  user.role === "operator" ? { type: "operator", operatorId: user.id } : { type: "user", userId: user.id };

/**
 * The people who sign in: a business's users (sign-up creates the business) and operators.
 * Passwords are argon2id hashes; a TOTP secret is sealed by the master key; repeated failures
 * pause sign-in; every sign-in, failure and credential change is in the audit log.
 */
export class UserService {
  private readonly now: Clock;

  constructor(private readonly options: UserServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Creates the business (not_submitted, no keys yet) and its first user. */
  async signUp(input: { businessName: string; email: string; password: string }): Promise<User> {
    const email = parseEmail(input.email);
    checkPassword(input.password, [email, input.businessName]);
    const db = this.options.storage.db;
    if (await findUserByEmail(db, "business", email)) {
      throw new AppError(ErrorCode.CONFLICT, 409, "An account with this email exists: sign in instead");
    }
    const passwordHash = await hashPassword(input.password);
    const business = await this.options.businesses.registerBusiness(input.businessName);
    const row = this.newUser("business", business.id, email, passwordHash);
    await writeTransaction(this.options.storage, async (trx) => {
      await insertUser(trx, row);
      await insertAudit(trx, this.audit(row, "user.signed_up", { email }));
    });
    return toUser(row);
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
   * Checks an email and password for the role. Unknown emails take as long as wrong passwords
   * and get the same answer. While sign-in is paused (too many failures) the password is not
   * even checked. The caller asks for the TOTP code next when `totpEnabled`.
   */
  async signIn(role: UserRole, emailText: string, password: string): Promise<User> {
    const email = typeof emailText === "string" ? emailText.trim().toLowerCase() : "";
    const db = this.options.storage.db;
    const row = email === "" ? undefined : await findUserByEmail(db, role, email);
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
    this.refuseWhileLocked(row);
    if (!(await passwordMatches(row.password_hash, password))) {
      await this.failed(row, "wrong password");
      throw invalidCredentials();
    }
    await updateUser(db, row.id, { failed_logins: 0, locked_until: null });
    await insertAudit(
      db,
      this.audit(row, row.totp_enabled_at ? "sign_in.password_accepted" : "sign_in.succeeded", {}),
    );
    return toUser(row);
  }

  /** The second factor: a current TOTP code, each good once. Failures count toward the pause. */
  async verifySignInCode(userId: string, code: string): Promise<User> {
    const row = await this.requireUser(userId);
    this.refuseWhileLocked(row);
    const secret = row.totp_enabled_at ? this.totpSecret(row) : undefined;
    const step =
      secret === undefined
        ? undefined
        : acceptedTotpStep(secret, String(code), this.now(), row.totp_last_step);
    if (step === undefined) {
      await this.failed(row, "wrong code");
      throw invalidCode();
    }
    await writeTransaction(this.options.storage, async (trx) => {
      await updateUser(trx, row.id, { totp_last_step: step, failed_logins: 0, locked_until: null });
      await insertAudit(trx, this.audit(row, "sign_in.succeeded", { factor: "totp" }));
    });
    return toUser(row);
  }

  /** Changes the password (the current one is required) and ends the user's other sessions. */
  async changePassword(userId: string, current: string, next: string, keepSession?: string): Promise<void> {
    const row = await this.requireUser(userId);
    if (!(await passwordMatches(row.password_hash, current))) {
      // Someone guessing from a session left open shows in the activity list.
      await insertAudit(this.options.storage.db, this.audit(row, "password.change_failed", {}));
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The current password is not right");
    }
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

  /** Turns two-factor sign-in on, once a code from the new secret proves the app has it. */
  async confirmTotp(userId: string, code: string): Promise<void> {
    const row = await this.requireUser(userId);
    const secret = this.totpSecret(row);
    if (!secret || row.totp_enabled_at) throw validationFailed("start two-factor sign-in first");
    const step = acceptedTotpStep(secret, String(code), this.now(), null);
    if (step === undefined) throw invalidCode();
    await writeTransaction(this.options.storage, async (trx) => {
      await updateUser(trx, row.id, { totp_enabled_at: this.isoNow(), totp_last_step: step });
      await insertAudit(trx, this.audit(row, "totp.enabled", {}));
    });
  }

  /** Turns two-factor sign-in off (the password is required). */
  async disableTotp(userId: string, password: string): Promise<void> {
    const row = await this.requireUser(userId);
    if (!(await passwordMatches(row.password_hash, password))) {
      await insertAudit(this.options.storage.db, this.audit(row, "totp.disable_failed", {}));
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 401, "The password is not right");
    }
    await writeTransaction(this.options.storage, async (trx) => {
      await updateUser(trx, row.id, {
        totp_secret_ciphertext: null,
        totp_enabled_at: null,
        totp_last_step: null,
      });
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

  async getUser(userId: string): Promise<User> {
    return toUser(await this.requireUser(userId));
  }

  /** Records what a user did to a business (key changes, for example) in the audit log. */
  async record(actor: Actor, businessId: string | null, action: string, detail: Record<string, unknown>) {
    await insertAudit(this.options.storage.db, {
      id: randomUUID(),
      business_id: businessId,
      actor_type: actor.type,
      actor_id: actorId(actor),
      action,
      detail: JSON.stringify(detail),
      created_at: this.isoNow(),
    });
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
      failed_logins: 0,
      locked_until: null,
      password_changed_at: now,
      created_at: now,
    };
  }

  private async requireUser(userId: string): Promise<UserRow> {
    const row = await findUser(this.options.storage.db, userId);
    if (!row) throw invalidCredentials();
    return row;
  }

  private refuseWhileLocked(row: UserRow): void {
    if (row.locked_until !== null && row.locked_until > this.isoNow()) throw locked(row.locked_until);
  }

  private async failed(row: UserRow, reason: string): Promise<void> {
    const lockUntil = new Date(this.now() + LOCKOUT_MS).toISOString();
    await writeTransaction(this.options.storage, async (trx) => {
      await countFailedLogin(trx, row.id, MAX_FAILED_SIGN_INS, lockUntil);
      await insertAudit(trx, this.audit(row, "sign_in.failed", { reason }));
    });
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

function parseEmail(text: unknown): string {
  const parsed = emailSchema.safeParse(text);
  if (!parsed.success) throw validationFailed(parsed.error.issues[0]?.message ?? "email is not valid");
  return parsed.data;
}
