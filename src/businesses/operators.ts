import { randomBytes } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import type { Actor } from "../core/actor.js";
import { emailField } from "../core/form-fields.js";
import { OPERATOR_ROLES, type OperatorRole } from "../core/people.js";
import { AppError, ErrorCode, validationFailed } from "../errors.js";
import type { MailNotices } from "../mail/notices.js";
import { advanceCounter } from "../storage/counter-repository.js";
import { insertPasswordReset } from "../storage/credential-repository.js";
import type { Storage } from "../storage/database.js";
import { writeTransaction } from "../storage/transactions.js";
import {
  enabledAdmins,
  findUser,
  findUserByEmail,
  insertActorAudit,
  insertUser,
  operatorUsers,
  revokeUserSessions,
  updateUser,
} from "../storage/user-repository.js";
import { newLinkToken } from "./links.js";
import type { ResetLink } from "./password-resets.js";
import { hashPassword } from "./passwords.js";
import { newUserRecord } from "./user-records.js";

// The console's operators (issue 28, item 11): an admin invites one by email with a role (the
// mailed link sets their password), changes a role, disables and enables. The console always
// keeps an enabled admin: the last one cannot be disabled or made a reviewer, whoever asks and
// however many ask at once (every change takes one counter's row lock first, on both databases,
// so the check and the change are one step).

/** How long an operator's invitation link works. */
export const OPERATOR_INVITATION_DAYS = 7;

export const OPERATOR_ROLE_LABELS: Readonly<Record<OperatorRole, string>> = {
  reviewer: "Reviewer",
  admin: "Admin",
};

export interface OperatorSummary {
  id: string;
  email: string;
  role: OperatorRole;
  disabled: boolean;
  totpEnabled: boolean;
  createdAt: string;
}

const CHANGES = "operators.changes";

const notAnOperator = () => new AppError(ErrorCode.NOT_FOUND, 404, "No such operator");
const lastAdmin = () =>
  new AppError(
    ErrorCode.CONFLICT,
    409,
    "The console needs an enabled admin: make another operator an admin first.",
  );

/** A role as the form sends it, or a 400 in the form's words. */
export function operatorRoleOf(text: string | undefined): OperatorRole {
  const role = OPERATOR_ROLES.find((candidate) => candidate === text);
  if (!role) throw validationFailed("Role must be Reviewer or Admin");
  return role;
}

export class Operators {
  private readonly now: Clock;

  constructor(private readonly options: { storage: Storage; notices: MailNotices; now?: Clock }) {
    this.now = options.now ?? Date.now;
  }

  async list(): Promise<OperatorSummary[]> {
    const operators = await operatorUsers(this.options.storage.db);
    return operators.map((operator) => ({
      id: operator.id,
      email: operator.email,
      role: operator.operatorRole ?? "admin",
      disabled: operator.disabledAt !== null,
      totpEnabled: operator.totpEnabledAt !== null,
      createdAt: operator.createdAt,
    }));
  }

  /**
   * Makes an operator with this email and role, with a password nobody knows, and mails a link
   * (once, 7 days) to choose one at the console's reset page. An email that is an operator's is
   * refused.
   */
  async invite(actor: Actor & { type: "operator" }, emailText: string, role: OperatorRole): Promise<void> {
    const email = emailField("Their email")(emailText);
    const { storage, notices } = this.options;
    if (await findUserByEmail(storage.db, "operator", email)) {
      throw new AppError(ErrorCode.CONFLICT, 409, `${email} is an operator already`);
    }
    const now = this.now();
    const at = new Date(now).toISOString();
    // A password no one knows until the link sets one.
    const row = {
      ...newUserRecord("operator", email, await hashPassword(randomBytes(32).toString("hex")), at),
      operatorRole: role,
    };
    const { token, hash } = newLinkToken();
    const inviter = await findUser(storage.db, actor.id);
    await writeTransaction(storage, async (trx) => {
      await insertUser(trx, row);
      const link: ResetLink = {
        tokenHash: hash,
        userId: row.id,
        createdAt: at,
        expiresAt: new Date(now + OPERATOR_INVITATION_DAYS * 86_400_000).toISOString(),
      };
      await insertPasswordReset(trx, link);
      await insertActorAudit(trx, {
        actor,
        businessId: null,
        action: "operator.invited",
        detail: { email, role },
        at,
      });
    });
    await notices.operatorInvitation({
      email,
      role: OPERATOR_ROLE_LABELS[role],
      invitedBy: inviter?.email ?? "An operator",
      link: `${notices.publicUrl}/admin/reset?token=${token}`,
      days: OPERATOR_INVITATION_DAYS,
    });
  }

  /** Gives an operator another role; never leaves the console without an enabled admin. */
  async setRole(actor: Actor, id: string, role: OperatorRole): Promise<void> {
    await this.change(actor, id, "operator.role_changed", { operatorRole: role }, { role });
  }

  /**
   * Disables (their sessions end, their sign-in is refused) or enables an operator; an operator
   * does not disable themselves, and the last enabled admin is not disabled.
   */
  async setDisabled(actor: Actor, id: string, disabled: boolean): Promise<void> {
    if (disabled && actor.type === "operator" && actor.id === id) {
      throw validationFailed("You cannot disable yourself: another admin can");
    }
    const at = isoNow(this.now);
    await this.change(
      actor,
      id,
      disabled ? "operator.disabled" : "operator.enabled",
      { disabledAt: disabled ? at : null },
      {},
    );
  }

  private async change(
    actor: Actor,
    id: string,
    action: string,
    fields: { operatorRole?: OperatorRole; disabledAt?: string | null },
    detail: Record<string, unknown>,
  ): Promise<void> {
    const at = isoNow(this.now);
    await writeTransaction(this.options.storage, async (trx) => {
      // One row lock for every operator change: the count below sees every change before it.
      await advanceCounter(trx, CHANGES, 1);
      const row = await findUser(trx, id);
      if (row?.role !== "operator") throw notAnOperator();
      const role = fields.operatorRole ?? row.operatorRole;
      const disabled = fields.disabledAt === undefined ? row.disabledAt !== null : fields.disabledAt !== null;
      const wasAnAdmin = row.operatorRole === "admin" && row.disabledAt === null;
      if (wasAnAdmin && (role !== "admin" || disabled) && (await enabledAdmins(trx)) <= 1) throw lastAdmin();
      await updateUser(trx, id, fields);
      if (fields.disabledAt) await revokeUserSessions(trx, id, at);
      await insertActorAudit(trx, {
        actor,
        businessId: null,
        action,
        detail: { email: row.email, ...detail },
        at,
      });
    });
  }
}
