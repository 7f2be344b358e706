import type { Payout, SettlementTerms } from "../core/api-types.js";
import { findBusiness } from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import { businessUserEmails, ownerEmail } from "../storage/mail-repository.js";
import type { MailContent, Mailer } from "./mailer.js";
import { MESSAGES } from "./messages.js";

// What the service tells people by mail as things happen (issue 28, item 1): a business's
// verification decided, a sign-in from a new browser, its settlement account changed, a payout
// failed. Each is queued after the change is committed; the mail job sends it.

export interface MailNoticesOptions {
  storage: Storage;
  mailer: Mailer;
  /** Where users reach the service: every link starts with it (PUBLIC_URL). */
  publicUrl: string;
  /** MONEY_COOL_OFF_HOURS, said in the owner's mail about a new authenticator. */
  moneyCoolOffHours?: number;
}

export class MailNotices {
  constructor(private readonly options: MailNoticesOptions) {}

  /** Where users reach the service: links start with it. */
  get publicUrl(): string {
    return this.options.publicUrl;
  }

  /** A business's verification approved or rejected (with the reviewer's reason): to its people. */
  async verificationDecided(
    businessId: string,
    change: { to: string; reason: string | null },
  ): Promise<void> {
    if (change.to !== "completed" && change.to !== "rejected") return;
    const { publicUrl } = this.options;
    await this.toBusiness(
      businessId,
      `verification.${change.to === "completed" ? "approved" : "rejected"}`,
      (business) =>
        change.to === "completed"
          ? MESSAGES.verificationApproved({ business, publicUrl })
          : MESSAGES.verificationRejected({
              business,
              reason: change.reason ?? "No reason was given.",
              publicUrl,
            }),
    );
  }

  /** A sign-in, with every factor passed, from a browser the user had not signed in from before. */
  async newDevice(
    user: { email: string; businessId: string | null },
    at: string,
    address: string,
    device: string,
  ) {
    const { publicUrl } = this.options;
    await this.toPerson(
      "sign_in.new_device",
      user.email,
      MESSAGES.newDevice({ email: user.email, at, address, device: describeDevice(device), publicUrl }),
      user.businessId,
    );
  }

  /** A password reset link, to the user who asked (the link is a secret: sealed in the outbox, never logged). */
  async passwordReset(user: { email: string; businessId: string | null }, link: string, minutes: number) {
    await this.toPerson(
      "password.reset",
      user.email,
      MESSAGES.passwordReset({ email: user.email, link, minutes }),
      user.businessId,
    );
  }

  /** A sign-up's confirmation link (a secret: sealed in the outbox, never logged). */
  async signUpConfirmation(email: string, business: string, link: string, hours: number) {
    await this.toPerson(
      "sign_up.confirm",
      email,
      MESSAGES.signUpConfirmation({ email, business, link, hours }),
    );
  }

  /** A sign-up with an email that has an account: to that account, instead of a link. */
  async signUpTaken(email: string) {
    const { publicUrl } = this.options;
    await this.toPerson("sign_up.taken", email, MESSAGES.signUpTaken({ email, publicUrl }));
  }

  /** An invitation to join a business's team (its link is a secret, as a reset link's). */
  async invitation(
    businessId: string,
    invitation: {
      email: string;
      business: string;
      role: string;
      invitedBy: string;
      link: string;
      days: number;
    },
  ) {
    await this.toPerson("member.invited", invitation.email, MESSAGES.invitation(invitation), businessId);
  }

  /** An operator admin invited an operator: the link sets their password (a secret: sealed in the outbox). */
  async operatorInvitation(invitation: {
    email: string;
    role: string;
    invitedBy: string;
    link: string;
    days: number;
  }) {
    await this.toPerson("operator.invited", invitation.email, MESSAGES.operatorInvitation(invitation));
  }

  /** An operator turned the user's two-factor sign-in off. */
  async twoFactorReset(user: { email: string; businessId: string | null }) {
    await this.toPerson(
      "totp.reset",
      user.email,
      MESSAGES.twoFactorReset({ email: user.email, publicUrl: this.options.publicUrl }),
      user.businessId,
    );
  }

  /**
   * A member's second factor enrolled, turned off or reset by an operator: to the business's
   * owner (issue 43), who would otherwise not know that someone's authenticator changed before
   * money moves with it.
   */
  async secondFactorChanged(
    member: { email: string; businessId: string | null },
    change: "enrolled" | "disabled" | "reset",
  ): Promise<void> {
    if (member.businessId === null) return;
    const [business, owner] = await Promise.all([
      findBusiness(this.options.storage.db, member.businessId),
      ownerEmail(this.options.storage.db, member.businessId),
    ]);
    if (!business || !owner) return;
    await this.toPerson(
      `totp.${change}.owner`,
      owner,
      MESSAGES.secondFactorChanged({
        business: business.name,
        member: member.email,
        change,
        coolOffHours: this.options.moneyCoolOffHours ?? 0,
        publicUrl: this.options.publicUrl,
      }),
      member.businessId,
    );
  }

  /** The business handed over: to the owner before and the owner now (issue 43, item 8). */
  async ownershipTransferred(businessId: string, owners: { from: string; to: string }): Promise<void> {
    const business = await findBusiness(this.options.storage.db, businessId);
    if (!business) return;
    const message = MESSAGES.ownershipTransferred({
      business: business.name,
      ...owners,
      publicUrl: this.options.publicUrl,
    });
    for (const email of [owners.from, owners.to]) {
      await this.toPerson("ownership.transferred", email, message, businessId);
    }
  }

  /** A business's settlement account changed: to its people (money goes there after the cool-off). */
  async settlementAccountChanged(businessId: string, terms: SettlementTerms): Promise<void> {
    const account = terms.account;
    if (!account) return;
    await this.toBusiness(businessId, "settlement_account.updated", (business) =>
      MESSAGES.settlementAccountChanged({
        business,
        accountName: account.accountName,
        bankName: account.bankName,
        accountNumber: account.accountNumber,
        usableFrom: account.usableFrom,
        publicUrl: this.options.publicUrl,
      }),
    );
  }

  /** A payout (or refund, or settlement) that failed, or came back after it was paid: to its business's people. */
  async payoutMoved(businessId: string, payout: Payout): Promise<void> {
    if (payout.status !== "failed" && payout.status !== "reversed") return;
    const message = payout.status === "failed" ? MESSAGES.payoutFailed : MESSAGES.payoutReturned;
    await this.toBusiness(businessId, `payout.${payout.status}`, (business) =>
      message({
        business,
        payoutId: payout.id,
        amount: payout.amount,
        accountName: payout.accountName,
        bankName: payout.bankName,
        reason: payout.failureReason,
        refund: payout.refundOf !== null,
        publicUrl: this.options.publicUrl,
      }),
    );
  }

  /** Queues one message to one person, then sends. */
  private async toPerson(
    kind: string,
    email: string,
    message: MailContent,
    businessId: string | null = null,
  ) {
    await this.options.mailer.queue(kind, email, message, businessId);
    this.options.mailer.kick();
  }

  /** Queues one message to each of a business's people, then sends. */
  private async toBusiness(
    businessId: string,
    kind: string,
    message: (business: string) => ReturnType<(typeof MESSAGES)[keyof typeof MESSAGES]>,
  ): Promise<void> {
    const { storage, mailer } = this.options;
    const [business, emails] = await Promise.all([
      findBusiness(storage.db, businessId),
      businessUserEmails(storage.db, businessId),
    ]);
    if (!business) return;
    for (const email of emails) await mailer.queue(kind, email, message(business.name), businessId);
    if (emails.length > 0) mailer.kick();
  }
}

/** A browser in a few words from its User-Agent: what a person recognises. */
export function describeDevice(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /OPR\//.test(userAgent)
      ? "Opera"
      : /Chrome\//.test(userAgent)
        ? "Chrome"
        : /Firefox\//.test(userAgent)
          ? "Firefox"
          : /Safari\//.test(userAgent)
            ? "Safari"
            : undefined;
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Windows/.test(userAgent)
        ? "Windows"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : undefined;
  if (!browser && !system)
    return userAgent ? `an unrecognised browser (${userAgent.slice(0, 80)})` : "an unknown browser";
  return `${browser ?? "A browser"} on ${system ?? "an unknown system"}`;
}
