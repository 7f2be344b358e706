import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import type { UserRecord } from "../core/people.js";
import { AppError, ErrorCode } from "../errors.js";
import type { MailNotices } from "../mail/notices.js";
import { findBusiness } from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import { isUniqueViolation } from "../storage/errors.js";
import {
  deleteExpiredLinks,
  hasOwner,
  insertInvitation,
  liveInvitation,
  openInvitations,
  revokeInvitation,
  takeInvitation,
} from "../storage/team-repository.js";
import { writeTransaction } from "../storage/transactions.js";
import { businessUsers, insertAudit, insertUser } from "../storage/user-repository.js";
import { linkGone, linkHash, newLinkToken } from "./links.js";
import { checkPassword, hashPassword } from "./passwords.js";
import { type MemberRole, ROLE_LABELS } from "./roles.js";
import { actingMember, assignable, mayGiveOrTake } from "./team.js";
import { newUserRecord, userAudit } from "./user-records.js";
import { parseEmail, toUser, type User } from "./users.js";

// Invitations to a business's team (issue 28, item 3): a single-use link mailed for seven days,
// kept only as its token's hash; inviting the same email again voids the earlier link. The
// invitee chooses a password on the link's page and joins with the invitation's role. The CLI's
// invite-owner gives a business made without one its first owner the same way.

/** How long an invitation's link works. */
export const INVITATION_DAYS = 7;

export interface InvitationsOptions {
  storage: Storage;
  notices: MailNotices;
  now?: Clock;
}

/** An invitation not yet accepted, revoked or expired. */
export interface OpenInvitation {
  id: string;
  email: string;
  role: MemberRole;
  createdAt: string;
  expiresAt: string;
}

/** An invitation as the domain reads it (storage's team-repository.ts selects it): never its token's hash. */
interface InvitationRecord {
  id: string;
  businessId: string;
  email: string;
  memberRole: MemberRole;
  /** The user who invited (null: the CLI's invite-owner). */
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}

/** A new invitation, told to storage with its link's token's hash (neither accepted nor revoked). */
interface NewInvitation extends InvitationRecord {
  tokenHash: string;
}

const invitationGone = () =>
  linkGone(`Ask whoever invited you for a new invitation: each works once, for ${INVITATION_DAYS} days.`);

export class Invitations {
  private readonly now: Clock;

  constructor(private readonly options: InvitationsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Forgets invitations whose link expired a day ago or more, used or not (the prune-sessions job). */
  prune(): Promise<number> {
    return deleteExpiredLinks(
      this.options.storage.db,
      "invitations",
      new Date(this.now() - 86_400_000).toISOString(),
    );
  }

  /** The business's invitations still open, newest first. */
  async open(businessId: string): Promise<OpenInvitation[]> {
    const invitations: InvitationRecord[] = await openInvitations(
      this.options.storage.db,
      businessId,
      isoNow(this.now),
    );
    return invitations.map((invitation) => ({
      id: invitation.id,
      email: invitation.email,
      role: invitation.memberRole,
      createdAt: invitation.createdAt,
      expiresAt: invitation.expiresAt,
    }));
  }

  /**
   * Invites `email` to the business as `role` (not owner); an earlier open invitation of the same
   * email is revoked. Whether the email has an account anywhere is not told to the inviter: the
   * invitee learns it from the link.
   */
  async invite(businessId: string, byUserId: string, emailText: string, roleText: unknown): Promise<void> {
    const by = await this.acting(businessId, byUserId, "invite members");
    const email = parseEmail(emailText);
    const role = assignable(roleText);
    mayGiveOrTake(by, role);
    const members = await businessUsers(this.options.storage.db, businessId);
    if (members.some((member) => member.email === email)) {
      throw new AppError(ErrorCode.CONFLICT, 409, `${email} is already a member of your business`);
    }
    await this.sendInvitation(businessId, email, role, by);
  }

  /** The CLI's `vas business invite-owner`: the first owner of a business created without one. */
  async inviteOwner(businessId: string, emailText: string): Promise<{ email: string; expiresAt: string }> {
    const email = parseEmail(emailText);
    const db = this.options.storage.db;
    if (!(await findBusiness(db, businessId))) {
      throw new AppError(ErrorCode.NOT_FOUND, 404, `no business with id ${businessId}`);
    }
    if (await hasOwner(db, businessId)) {
      throw new AppError(
        ErrorCode.CONFLICT,
        409,
        "This business has an owner: they invite members, and hand the business over from the dashboard",
      );
    }
    return this.sendInvitation(businessId, email, "owner", undefined);
  }

  /** Revokes an open invitation of the business. */
  async revoke(businessId: string, byUserId: string, invitationId: string): Promise<void> {
    const by = await this.acting(businessId, byUserId, "revoke invitations");
    await writeTransaction(this.options.storage, async (trx) => {
      const now = isoNow(this.now);
      if (!(await revokeInvitation(trx, businessId, invitationId, now))) {
        throw new AppError(ErrorCode.NOT_FOUND, 404, "There is no such open invitation");
      }
      await insertAudit(trx, userAudit(by, "member.invitation_revoked", { invitation: invitationId }, now));
    });
  }

  /** What an invitation's link offers, while it is good (its page shows it). */
  async pending(
    token: string,
  ): Promise<{ businessName: string; email: string; role: MemberRole } | undefined> {
    const db = this.options.storage.db;
    const invitation: InvitationRecord | undefined = await liveInvitation(
      db,
      linkHash(token),
      isoNow(this.now),
    );
    const business = invitation && (await findBusiness(db, invitation.businessId));
    return (
      invitation &&
      business && { businessName: business.name, email: invitation.email, role: invitation.memberRole }
    );
  }

  /**
   * Accepts an invitation with the invitee's new password: they join with its role (their email
   * is confirmed by the link), in one transaction with the link's use.
   */
  async accept(token: string, password: string): Promise<User> {
    const invitation = await this.pending(token);
    if (!invitation) throw invitationGone();
    checkPassword(password, [invitation.email, invitation.businessName]);
    const passwordHash = await hashPassword(password);
    let member: UserRecord | undefined;
    try {
      await writeTransaction(this.options.storage, async (trx) => {
        const now = isoNow(this.now);
        const taken: InvitationRecord | undefined = await takeInvitation(trx, linkHash(token), now);
        if (!taken) throw invitationGone();
        if (taken.memberRole === "owner" && (await hasOwner(trx, taken.businessId))) {
          throw new AppError(
            ErrorCode.CONFLICT,
            409,
            "This business has an owner now: ask them to invite you",
          );
        }
        member = newUserRecord(
          { businessId: taken.businessId, memberRole: taken.memberRole },
          taken.email,
          passwordHash,
          now,
        );
        await insertUser(trx, member);
        await insertAudit(trx, userAudit(member, "member.joined", joinedDetail(taken), now));
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError(
          ErrorCode.CONFLICT,
          409,
          `${invitation.email} already has an account here, and an email belongs to one business: ask to be invited with another address`,
        );
      }
      throw error;
    }
    return toUser(member as UserRecord);
  }

  private async sendInvitation(
    businessId: string,
    email: string,
    role: MemberRole,
    by: UserRecord | undefined,
  ): Promise<{ email: string; expiresAt: string }> {
    const { storage, notices } = this.options;
    const { token, hash } = newLinkToken();
    const now = this.now();
    const expiresAt = new Date(now + INVITATION_DAYS * 86_400_000).toISOString();
    const business = await findBusiness(storage.db, businessId);
    await writeTransaction(storage, async (trx) => {
      const invitation: NewInvitation = {
        id: `inv_${randomUUID().replaceAll("-", "")}`,
        tokenHash: hash,
        businessId,
        email,
        memberRole: role,
        invitedBy: by?.id ?? null,
        createdAt: new Date(now).toISOString(),
        expiresAt,
      };
      await insertInvitation(trx, invitation);
      const audit = userAudit(by, "member.invited", { email, role }, new Date(now).toISOString());
      await insertAudit(trx, { ...audit, businessId, actorType: by ? "user" : "cli" });
    });
    await notices.invitation(businessId, {
      email,
      business: business?.name ?? "a business",
      role: ROLE_LABELS[role],
      invitedBy: by?.email ?? "The Virtual Account Service",
      link: `${notices.publicUrl}/dashboard/join?token=${token}`,
      days: INVITATION_DAYS,
    });
    return { email, expiresAt };
  }

  private acting(businessId: string, userId: string, what: string): Promise<UserRecord> {
    return actingMember(this.options.storage.db, businessId, userId, "members", what);
  }
}

const joinedDetail = (invitation: InvitationRecord) => ({
  role: invitation.memberRole,
  invitedBy: invitation.invitedBy,
});
