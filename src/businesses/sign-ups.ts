import { type Clock, isoNow } from "../clock.js";
import { checkForm, emailField, labelled } from "../core/form-fields.js";
import type { MailNotices } from "../mail/notices.js";
import type { Storage } from "../storage/database.js";
import { isUniqueViolation } from "../storage/errors.js";
import { deleteExpiredLinks, insertSignUp, liveSignUp, takeSignUp } from "../storage/team-repository.js";
import { findUserByEmail, insertAudit, insertUser } from "../storage/user-repository.js";
import { parseBusinessName } from "./business-name.js";
import type { BusinessService } from "./business-service.js";
import { linkGone, linkHash, newLinkToken } from "./links.js";
import { checkPassword, hashPassword } from "./passwords.js";
import { newUserRecord, userAudit } from "./user-records.js";
import { toUser, type User } from "./users.js";

// Sign-up (issue 28, item 2): the form's answer is the same whether or not the email has an
// account, so it reveals nothing. A new email is mailed a link that confirms it; the business and
// its owner are made, and signed in, only when it is used. An email that has an account is
// mailed instead that someone tried (with the sign-in and reset links). The password is checked
// and hashed when it is chosen; until the link is used only its hash is kept, with the link's.

/** How long a sign-up's confirmation link works. */
export const SIGN_UP_LINK_HOURS = 24;

export interface SignUpInput {
  businessName: string;
  email: string;
  password: string;
}

export interface SignUpsOptions {
  storage: Storage;
  businesses: BusinessService;
  notices: MailNotices;
  now?: Clock;
}

/** A sign-up as storage's team-repository.ts reads it: never its link's token's hash. */
interface SignUpRecord {
  email: string;
  businessName: string;
  /** argon2id of the password chosen at sign-up. */
  passwordHash: string;
}

/** A new sign-up, told to storage with its link's token's hash (not yet used). */
interface NewSignUp extends SignUpRecord {
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
}

const linkExpired = () =>
  linkGone(`Sign up again for a new one: each works once, for ${SIGN_UP_LINK_HOURS} hours.`);

/** A sign-up confirmed after its email got an account some other way (another link, an invitation). */
const alreadyUsed = () => linkGone("This email has an account now: sign in with it (or reset its password).");

export class SignUps {
  private readonly now: Clock;

  constructor(private readonly options: SignUpsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Checks the form, then mails the email its link (or, when it has an account, says so to it). */
  async request(input: SignUpInput): Promise<void> {
    const started = await this.begin(input);
    const { notices } = this.options;
    if (started.token === undefined) {
      await notices.signUpTaken(started.email);
      return;
    }
    const link = `${notices.publicUrl}/dashboard/confirm?token=${started.token}`;
    await notices.signUpConfirmation(started.email, input.businessName.trim(), link, SIGN_UP_LINK_HOURS);
  }

  /**
   * Records a sign-up: its link's token, or none when the email already has an account (the
   * password is hashed either way, so both take as long). Nothing is mailed (`request` mails).
   */
  async begin(input: SignUpInput): Promise<{ email: string; token?: string }> {
    const { email, businessName } = checkForm(input as unknown as Record<string, unknown>, {
      businessName: {
        label: "Business name",
        check: (value) => labelled("Business name", "business name", () => parseBusinessName(value)),
      },
      email: { label: "Your email", check: emailField("Your email") },
      password: {
        label: "Password",
        check: (value) => checkPassword(value, [input.email, input.businessName]),
      },
    });
    const { storage } = this.options;
    const passwordHash = await hashPassword(input.password);
    if (await findUserByEmail(storage.db, "business", email)) return { email };
    const { token, hash } = newLinkToken();
    const now = this.now();
    const signUp: NewSignUp = {
      tokenHash: hash,
      email,
      businessName,
      passwordHash,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + SIGN_UP_LINK_HOURS * 3_600_000).toISOString(),
    };
    await insertSignUp(storage.db, signUp);
    return { email, token };
  }

  /** Forgets sign-ups whose link expired a day ago or more (the prune-sessions job). */
  prune(): Promise<number> {
    return deleteExpiredLinks(
      this.options.storage.db,
      "sign_ups",
      new Date(this.now() - 86_400_000).toISOString(),
    );
  }

  /** The business and email a link would confirm, while it is good (the page asks to confirm). */
  async pending(token: string): Promise<{ businessName: string; email: string } | undefined> {
    const signUp: SignUpRecord | undefined = await liveSignUp(
      this.options.storage.db,
      linkHash(token),
      isoNow(this.now),
    );
    return signUp && { businessName: signUp.businessName, email: signUp.email };
  }

  /**
   * Uses the link: the business (not_submitted, no keys) and its owner are made in one
   * transaction with the link's use, so a failure leaves the link good and two clicks make one.
   */
  async confirm(token: string): Promise<User> {
    const { businesses } = this.options;
    let owner: ReturnType<typeof newUserRecord> | undefined;
    let name = "";
    try {
      const pending = await this.pending(token);
      if (!pending) throw linkExpired();
      name = pending.businessName;
      await businesses.registerBusiness(pending.businessName, async (trx, business) => {
        const now = isoNow(this.now);
        const signUp: SignUpRecord | undefined = await takeSignUp(trx, linkHash(token), now);
        if (!signUp) throw linkExpired();
        owner = newUserRecord(
          { businessId: business.id, memberRole: "owner" },
          signUp.email,
          signUp.passwordHash,
          now,
        );
        await insertUser(trx, owner);
        await insertAudit(
          trx,
          userAudit(owner, "user.signed_up", { email: signUp.email, business: name }, now),
        );
      });
    } catch (error) {
      // Another link of the same email, or an invitation, got there first.
      if (isUniqueViolation(error)) throw alreadyUsed();
      throw error;
    }
    return toUser(owner as ReturnType<typeof newUserRecord>);
  }
}
