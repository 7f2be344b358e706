import { type Clock, isoNow } from "../clock.js";
import type { UserRecord } from "../core/people.js";
import { AppError, ErrorCode } from "../errors.js";
import type { MailNotices } from "../mail/notices.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import {
  deleteMember,
  isTwoFactorRequired,
  moveMemberRole,
  setTwoFactorRequired,
} from "../storage/team-repository.js";
import { writeTransaction } from "../storage/transactions.js";
import { businessUsers, findUser, insertAudit } from "../storage/user-repository.js";
import { ASSIGNABLE_ROLES, type MemberRole, may, mayAssign, type Permission, ROLE_LABELS } from "./roles.js";
import type { SecondFactor } from "./second-factor.js";
import { requirePassword, userAudit } from "./user-records.js";

// A business's team (issue 28, item 3): its members and their roles, role changes, removal
// (their sessions end at once) and handing the business to another member; invitations are in
// invitations.ts. The acting member's role is read again here, from the database, for every
// change: the dashboard checks it too, but nothing rests on that alone.

export interface TeamOptions {
  storage: Storage;
  secondFactor: SecondFactor;
  /** Mails both owners, the old and the new, when the business is handed over. */
  notices?: MailNotices;
  now?: Clock;
}

/** A member as the team page lists them. */
export interface Member {
  id: string;
  email: string;
  role: MemberRole;
  totpEnabled: boolean;
  joinedAt: string;
}

export const forbidden = (what: string) =>
  new AppError(
    ErrorCode.FORBIDDEN,
    403,
    `Your role does not allow this: ${what}. Ask your business's owner.`,
  );
const noSuchMember = () => new AppError(ErrorCode.NOT_FOUND, 404, "There is no such member of your business");
const invalid = (message: string) => new AppError(ErrorCode.VALIDATION_FAILED, 400, message);

/** A role an invitation or a change may give, or a 400 that says which may. */
export function assignable(role: unknown): MemberRole {
  const found = ASSIGNABLE_ROLES.find((r) => r === role);
  if (!found) {
    throw invalid(
      `Role must be one of ${ASSIGNABLE_ROLES.map((r) => ROLE_LABELS[r]).join(", ")} (an owner is made by a transfer)`,
    );
  }
  return found;
}

export class Team {
  private readonly now: Clock;

  constructor(private readonly options: TeamOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The business's members, the owner first, then by when they joined. */
  async members(businessId: string): Promise<Member[]> {
    const rows = await businessUsers(this.options.storage.db, businessId);
    return rows
      .map((row) => ({
        id: row.id,
        email: row.email,
        role: row.memberRole ?? "viewer",
        totpEnabled: row.totpEnabledAt !== null,
        joinedAt: row.createdAt,
      }))
      .sort((a, b) => Number(b.role === "owner") - Number(a.role === "owner"));
  }

  /**
   * The owner requires two-factor sign-in of every member (or stops requiring it): a member
   * without it is led to set it up at their next page and can do nothing else until they have.
   * Audited; the owner must have it on themselves first.
   */
  async requireTwoFactor(businessId: string, byUserId: string, required: boolean): Promise<void> {
    const by = await this.acting(businessId, byUserId, "ownership", "require two-factor sign-in");
    if (required && !by.totpEnabledAt) {
      throw new AppError(
        ErrorCode.TWO_FACTOR_REQUIRED,
        403,
        "Turn on two-factor sign-in for yourself first, under Sign-in and security",
      );
    }
    await writeTransaction(this.options.storage, async (trx) => {
      const at = isoNow(this.now);
      await setTwoFactorRequired(trx, businessId, required, at);
      await insertAudit(
        trx,
        userAudit(by, `business.two_factor_${required ? "required" : "optional"}`, {}, at),
      );
    });
  }

  /** Whether the business requires two-factor sign-in of every member. */
  async twoFactorRequired(businessId: string): Promise<boolean> {
    return isTwoFactorRequired(this.options.storage.db, businessId);
  }

  /** Gives a member (not the owner, not oneself) another role. */
  async changeRole(businessId: string, byUserId: string, memberId: string, roleText: unknown): Promise<void> {
    const by = await this.acting(businessId, byUserId, "members", "change roles");
    const role = assignable(roleText);
    await writeTransaction(this.options.storage, async (trx) => {
      const member = await this.otherMember(trx, businessId, by, memberId, "change");
      mayGiveOrTake(by, member.memberRole);
      mayGiveOrTake(by, role);
      if (!(await moveMemberRole(trx, member.id, "not owner", role))) throw forbidden("change the owner");
      await insertAudit(
        trx,
        userAudit(
          by,
          "member.role_changed",
          { email: member.email, from: member.memberRole, to: role },
          isoNow(this.now),
        ),
      );
    });
  }

  /** Removes a member (not the owner, not oneself): their sessions end at once. */
  async remove(businessId: string, byUserId: string, memberId: string): Promise<void> {
    const by = await this.acting(businessId, byUserId, "members", "remove members");
    await writeTransaction(this.options.storage, async (trx) => {
      const member = await this.otherMember(trx, businessId, by, memberId, "remove");
      mayGiveOrTake(by, member.memberRole);
      if (!(await deleteMember(trx, member.id, member.email))) throw forbidden("remove the owner");
      await insertAudit(
        trx,
        userAudit(by, "member.removed", { email: member.email, role: member.memberRole }, isoNow(this.now)),
      );
    });
  }

  /**
   * The owner hands the business to another member, with their password and a two-factor code
   * (two-factor sign-in must be on): the member becomes the owner, the owner an admin.
   */
  async transferOwnership(
    businessId: string,
    byUserId: string,
    memberId: string,
    password: string,
    code: string,
  ): Promise<void> {
    const by = await this.acting(businessId, byUserId, "ownership", "hand the business over");
    const { storage, secondFactor } = this.options;
    if (!by.totpEnabledAt) {
      throw new AppError(
        ErrorCode.FORBIDDEN,
        403,
        "Turn on two-factor sign-in first: handing the business over takes your password and a code",
      );
    }
    await requirePassword(storage.db, by, password, "ownership.transfer_failed", isoNow(this.now));
    const member = await this.otherMember(storage.db, businessId, by, memberId, "hand over to");
    await secondFactor.confirmWithCode(by.id, code, "ownership.transfer");
    await writeTransaction(storage, async (trx) => {
      // The owner steps down first (the database holds one owner a business), each move only
      // from the role that was read: a hand-over that raced another changes nothing.
      if (!(await moveMemberRole(trx, by.id, "owner", "admin"))) throw forbidden("hand the business over");
      if (!(await moveMemberRole(trx, member.id, "not owner", "owner"))) throw noSuchMember();
      await insertAudit(trx, userAudit(by, "ownership.transferred", { to: member.email }, isoNow(this.now)));
    });
    await this.options.notices?.ownershipTransferred(businessId, { from: by.email, to: member.email });
  }

  private acting(
    businessId: string,
    userId: string,
    permission: Permission,
    what: string,
  ): Promise<UserRecord> {
    return actingMember(this.options.storage.db, businessId, userId, permission, what);
  }

  /** Another member of the business, not the owner (an owner hands over; they are not changed). */
  private async otherMember(
    db: Executor,
    businessId: string,
    by: UserRecord,
    memberId: string,
    verb: string,
  ): Promise<UserRecord> {
    const member = await findUser(db, memberId);
    if (!member || member.businessId !== businessId || member.role !== "business") throw noSuchMember();
    if (member.id === by.id) throw invalid(`You cannot ${verb} yourself: ask another admin or the owner`);
    if (member.memberRole === "owner") throw forbidden(`${verb} the owner`);
    return member;
  }
}

/** Refuses (403) a member who may not give or take `role` (roles.ts's mayAssign). */
export function mayGiveOrTake(by: UserRecord, role: MemberRole | null): void {
  if (role !== null && !mayAssign(by.memberRole, role)) {
    throw forbidden(
      `only the owner gives or takes the ${ROLE_LABELS[role].toLowerCase()} role, which moves money`,
    );
  }
}

/** The acting member, read now, when their role grants `permission` (`what` names the refusal). */
export async function actingMember(
  db: Executor,
  businessId: string,
  userId: string,
  permission: Permission,
  what: string,
): Promise<UserRecord> {
  const row = await findUser(db, userId);
  if (!row || row.businessId !== businessId) throw noSuchMember();
  if (!may(row.memberRole, permission)) throw forbidden(what);
  return row;
}
