import { createHmac } from "node:crypto";
import type { Clock } from "../clock.js";
import type { Actor } from "../core/actor.js";
import type { UserRecord } from "../core/people.js";
import { AppError, ErrorCode, validationFailed } from "../errors.js";
import type { MailNotices } from "../mail/notices.js";
import {
  recoveryCodesLeft,
  replaceRecoveryCodes,
  useRecoveryCode,
} from "../storage/credential-repository.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";
import {
  insertActorAudit,
  insertAudit,
  revokeUserSessions,
  updateUser,
  useTotpStep,
} from "../storage/user-repository.js";
import { coolingOff, refuseRecoveryCode, twoFactorNeeded } from "./money-factor.js";
import { newRecoveryCode, RECOVERY_CODE, RECOVERY_CODE_COUNT } from "./recovery-codes.js";
import type { SecretBox } from "./secret-box.js";
import { codeSubject, SignInAttempts } from "./sign-in-attempts.js";
import { acceptedTotpStep, newTotpSecret, totpUri } from "./totp.js";
import { invalidCode, requirePassword, requireUser, userAudit } from "./user-records.js";
import { type SignInOrigin, toUser, type User } from "./users.js";

// The second factor (issue 21; recovery, issue 28; money, issue 43): a TOTP app enrolled with
// the password and a first code, asked for at sign-in and before money moves, each time step good
// once, guesses counted per user. Money moves only with the app's code, from a user who has one,
// enrolled at least MONEY_COOL_OFF_HOURS ago; turning it off takes the password and the app's
// code (a recovery code signs in, nothing more), so a stolen password and recovery code can
// neither move money nor swap the authenticator.

export interface SecondFactorOptions {
  storage: Storage;
  box: SecretBox;
  /** Keys the HMACs kept in place of recovery codes (a service key). */
  recoveryKey: Buffer;
  /** Mails the user when an operator resets their two-factor, and the owner of every change. */
  notices?: MailNotices;
  /** How long an authenticator enrolled (or enrolled again) moves no money: MONEY_COOL_OFF_HOURS. */
  moneyCoolOffMs?: number;
  now?: Clock;
}

const totpContext = (userId: string) => `users:${userId}:totp`;

export class SecondFactor {
  private readonly now: Clock;
  private readonly attempts: SignInAttempts;

  constructor(private readonly options: SecondFactorOptions) {
    this.now = options.now ?? Date.now;
    this.attempts = new SignInAttempts(options.storage.db, this.now);
  }

  /**
   * The second factor: a current TOTP code. Guesses count against the user before they are
   * checked, and a step is marked used by one conditional write, so of any number of
   * concurrent sign-ins with one code exactly one succeeds.
   */
  async verifySignInCode(userId: string, code: string, from: SignInOrigin = {}): Promise<User> {
    const row = await requireUser(this.options.storage.db, userId);
    if (RECOVERY_CODE.test(code.trim())) await this.spendRecoveryCode(row, code, from);
    else await this.spendCode(row, code, "sign_in.succeeded", "sign_in.failed", { factor: "totp", ...from });
    return toUser(row);
  }

  /**
   * A recovery code in place of the app's: counted as a guess like a code, used up by one
   * conditional write (two sign-ins with one code: one succeeds), audited with how many are left.
   */
  private async spendRecoveryCode(row: UserRecord, code: string, from: SignInOrigin): Promise<void> {
    const subject = codeSubject(row.id);
    await this.attempts.count(subject);
    const hash = this.recoveryHash(row.id, code);
    const used =
      row.totpEnabledAt !== null &&
      (await writeTransaction(this.options.storage, async (trx) => {
        if (!(await useRecoveryCode(trx, row.id, hash, this.isoNow()))) return false;
        await this.attempts.clear(subject, trx);
        const left = await recoveryCodesLeft(trx, row.id);
        await insertAudit(
          trx,
          this.audit(row, "sign_in.succeeded", { factor: "recovery_code", left, ...from }),
        );
        return true;
      }));
    if (!used) {
      await insertAudit(
        this.options.storage.db,
        this.audit(row, "sign_in.failed", { reason: "wrong recovery code" }),
      );
      throw invalidCode();
    }
  }

  /** Ten new recovery codes for the user (the old ones are void), with the password and the app's code; shown once. */
  async regenerateRecoveryCodes(userId: string, password: string, code: string): Promise<string[]> {
    const row = await requireUser(this.options.storage.db, userId);
    if (!row.totpEnabledAt) throw validationFailed("Turn two-factor sign-in on first");
    await this.proveApp(row, password, code, "recovery_codes.change");
    return writeTransaction(this.options.storage, async (trx) => {
      const codes = await this.newRecoveryCodes(trx, row.id);
      await insertAudit(trx, this.audit(row, "recovery_codes.replaced", {}));
      return codes;
    });
  }

  /** How many of the user's recovery codes are left. */
  recoveryCodesLeft(userId: string): Promise<number> {
    return recoveryCodesLeft(this.options.storage.db, userId);
  }

  /**
   * An operator turns a user's two-factor sign-in off (they lost their phone and their codes):
   * the secret and codes are gone, every session of the user ends, it is audited under the
   * operator, and the user is mailed.
   */
  async resetByOperator(userId: string, operator: Actor): Promise<void> {
    const row = await requireUser(this.options.storage.db, userId);
    if (row.role !== "business")
      throw validationFailed(`${row.email} is an operator: only a business user's two-factor is reset here`);
    if (!row.totpEnabledAt) throw validationFailed(`${row.email} has no two-factor sign-in to reset`);
    await writeTransaction(this.options.storage, async (trx) => {
      const now = this.isoNow();
      await turnOff(trx, row.id, now);
      await insertActorAudit(trx, {
        actor: operator,
        businessId: row.businessId,
        action: "totp.reset_by_operator",
        detail: { email: row.email },
        at: now,
      });
    });
    await this.options.notices?.twoFactorReset({ email: row.email, businessId: row.businessId });
    await this.options.notices?.secondFactorChanged(row, "reset");
  }

  /** Ten fresh codes, stored as HMACs in place of the user's earlier ones. */
  private async newRecoveryCodes(trx: Executor, userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await replaceRecoveryCodes(
      trx,
      userId,
      codes.map((code) => this.recoveryHash(userId, code)),
      this.isoNow(),
    );
    return codes;
  }

  private recoveryHash(userId: string, code: string): string {
    const normalised = code.trim().toLowerCase().replace("-", "");
    return createHmac("sha256", this.options.recoveryKey).update(`${userId}:${normalised}`).digest("hex");
  }

  /**
   * Before moving money or where it goes (a payout, a refund, Settle now, API payouts on, the
   * settlement account, handing the business over): the user's current code from their
   * authenticator, by the same rules as signing in (counted guesses, each step used once). A
   * user without one is refused (set one up first), and so is one whose authenticator was
   * enrolled less than MONEY_COOL_OFF_HOURS ago, told until when (`shown` writes that time).
   */
  async confirmWithCode(
    userId: string,
    code: string | undefined,
    action: string,
    shown: (iso: string) => string = (iso) => iso,
  ): Promise<void> {
    const row = await requireUser(this.options.storage.db, userId);
    if (!row.totpEnabledAt) throw twoFactorNeeded();
    const usableFrom = Date.parse(row.totpEnabledAt) + (this.options.moneyCoolOffMs ?? 0);
    if (this.now() < usableFrom) throw coolingOff(shown(new Date(usableFrom).toISOString()));
    refuseRecoveryCode(code ?? "");
    await this.spendCode(row, code ?? "", `${action}.confirmed`, `${action}.code_failed`, {});
  }

  /** Until when the user's new authenticator moves no money (undefined: none, or its cool-off is over). */
  async coolingUntil(userId: string): Promise<string | undefined> {
    const row = await requireUser(this.options.storage.db, userId);
    if (!row.totpEnabledAt) return undefined;
    const usableFrom = Date.parse(row.totpEnabledAt) + (this.options.moneyCoolOffMs ?? 0);
    return this.now() < usableFrom ? new Date(usableFrom).toISOString() : undefined;
  }

  private async spendCode(
    row: UserRecord,
    code: string,
    succeeded: string,
    failed: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    const subject = codeSubject(row.id);
    await this.attempts.count(subject);
    const secret = row.totpEnabledAt ? this.totpSecret(row) : undefined;
    const step =
      secret === undefined ? undefined : acceptedTotpStep(secret, String(code), this.now(), row.totpLastStep);
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

  /** Starts two-factor enrolment: a new secret (kept sealed, not yet enabled) and its URI. */
  async beginTotp(userId: string): Promise<{ secret: string; uri: string }> {
    const row = await requireUser(this.options.storage.db, userId);
    if (row.totpEnabledAt) throw new AppError(ErrorCode.CONFLICT, 409, "Two-factor sign-in is already on");
    const secret = newTotpSecret();
    await updateUser(this.options.storage.db, row.id, {
      totpSecretCiphertext: this.options.box.seal(secret, totpContext(row.id)),
      totpLastStep: null,
    });
    return { secret, uri: totpUri(secret, row.email) };
  }

  /** The secret of an enrolment started but not confirmed, to show again (undefined: none). */
  async pendingTotp(userId: string): Promise<{ secret: string; uri: string } | undefined> {
    const row = await requireUser(this.options.storage.db, userId);
    const secret = row.totpEnabledAt ? undefined : this.totpSecret(row);
    return secret === undefined ? undefined : { secret, uri: totpUri(secret, row.email) };
  }

  /**
   * Turns two-factor sign-in on, once a code from the new secret proves the app has it and the
   * current password proves the person is the user (a stolen session cannot enrol its own
   * authenticator); the user's other sessions end.
   */
  async confirmTotp(userId: string, code: string, password: string, keepSession?: string): Promise<string[]> {
    const row = await requireUser(this.options.storage.db, userId);
    const secret = this.totpSecret(row);
    if (!secret || row.totpEnabledAt) throw validationFailed("start two-factor sign-in first");
    await requirePassword(this.options.storage.db, row, password, "totp.enable_failed", this.isoNow());
    const step = acceptedTotpStep(secret, String(code), this.now(), null);
    if (step === undefined) throw invalidCode();
    const codes = await writeTransaction(this.options.storage, async (trx) => {
      const now = this.isoNow();
      await updateUser(trx, row.id, { totpEnabledAt: now, totpLastStep: step });
      await revokeUserSessions(trx, row.id, now, keepSession);
      await insertAudit(trx, this.audit(row, "totp.enabled", {}));
      // Ten recovery codes come with it, shown once by the caller.
      return this.newRecoveryCodes(trx, row.id);
    });
    await this.options.notices?.secondFactorChanged(row, "enrolled");
    return codes;
  }

  /**
   * Turns two-factor sign-in off, with the password and a code from the app itself (not a
   * recovery code: one that signed in must not also remove the factor it stood in for); the
   * user's other sessions end. Setting up another app is turning this one off, then on again.
   */
  async disableTotp(userId: string, password: string, code: string, keepSession?: string): Promise<void> {
    const row = await requireUser(this.options.storage.db, userId);
    if (!row.totpEnabledAt) throw new AppError(ErrorCode.CONFLICT, 409, "Two-factor sign-in is already off");
    await this.proveApp(row, password, code, "totp.disable");
    await writeTransaction(this.options.storage, async (trx) => {
      const now = this.isoNow();
      await turnOff(trx, row.id, now, keepSession);
      await insertAudit(trx, this.audit(row, "totp.disabled", {}));
    });
    await this.options.notices?.secondFactorChanged(row, "disabled");
  }

  /**
   * The person holds the password and the authenticator itself, not only a recovery code: what
   * changing the second factor takes (`action` names the audit entries).
   */
  private async proveApp(row: UserRecord, password: string, code: string, action: string): Promise<void> {
    await requirePassword(this.options.storage.db, row, password, `${action}_failed`, this.isoNow());
    refuseRecoveryCode(code);
    await this.spendCode(row, code, `${action}_confirmed`, `${action}_failed`, {});
  }

  private totpSecret(row: UserRecord): string | undefined {
    return row.totpSecretCiphertext === null
      ? undefined
      : this.options.box.open(row.totpSecretCiphertext, totpContext(row.id));
  }

  private audit(row: UserRecord, action: string, detail: Record<string, unknown>) {
    return userAudit(row, action, detail, this.isoNow());
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}

/** Two-factor off for the user: the secret and the recovery codes gone, every session (but `keep`) ended. */
async function turnOff(trx: Executor, userId: string, now: string, keep?: string): Promise<void> {
  await updateUser(trx, userId, {
    totpSecretCiphertext: null,
    totpEnabledAt: null,
    totpLastStep: null,
  });
  await replaceRecoveryCodes(trx, userId, [], now);
  await revokeUserSessions(trx, userId, now, keep);
}
