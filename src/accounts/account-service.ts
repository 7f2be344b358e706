import { randomUUID } from "node:crypto";
import { type Clock, isoNow } from "../clock.js";
import type {
  AccountIdentity,
  AccountToCreate,
  AccountWrites,
  NumberToRecord,
} from "../core/account-writes.js";
import type { Actor, ForBusiness } from "../core/actor.js";
import type { ListedAccount } from "../core/listed-account.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { emailSchema, type ListQuery, type Pagination } from "../core/validation.js";
import { businessNotVerified, isAppError, providerUnavailable } from "../errors.js";
import { eventToWrite } from "../events/outbox.js";
import type {
  AccountProvider,
  IdentityRegistry,
  IssuedVirtualAccount,
} from "../providers/account-provider.js";
import {
  accountsByEmail,
  findAccountByAnyNumber,
  findPermanentByEmail,
} from "../storage/account-repository.js";
import type { Storage } from "../storage/database.js";
import { isStorageUnavailable, isUnverifiedNumberRefusal } from "../storage/errors.js";
import { statusOf } from "./account-status.js";
import type {
  AccountSummary,
  GeneratedPermanent,
  PermanentAccount,
  TemporaryAccount,
} from "./account-views.js";
import { checkIdentity, fingerprint } from "./identity-check.js";
import { identityTier } from "./tiers.js";
import { type Identity, type PermanentInput, type TemporaryInput, temporaryInput } from "./validation.js";

export interface AccountServiceOptions {
  storage: Storage;
  /** Generate's writes, in the database's dialect. */
  writes: AccountWrites;
  provider: AccountProvider;
  /** The bank's identity call: whose name a BVN or NIN is registered in (issue 46). */
  identities: IdentityRegistry;
  /** Keys the fingerprints stored in place of BVNs and NINs. */
  fingerprintKey: Buffer;
  /** The largest expectedAmount a temporary account may take (MAX_TRANSFER_KOBO). */
  maxTransferKobo?: number;
  now?: Clock;
}

/** How old a front's sighting of the business as verified may be for the bank to be asked without reading it again. */
const VERIFIED_FOR_MS = 1_000;

/** The business an account is issued for, and who asked for it (recorded with the number). */
type Issuer = ForBusiness & { actor: Actor };

/** A list item from the stored account, its status computed at `now`. */
export function accountSummary(account: ListedAccount, bankName: string, now: number): AccountSummary {
  return {
    bankName,
    accountNumber: account.accountNumber,
    email: account.email,
    accountName: account.accountName,
    createdAt: account.createdAt,
    isTemporary: account.kind === "temporary",
    expiresAt: account.expiresAt,
    status: statusOf(account, now),
  };
}

/** A write's failure as answered: the spec's "Business not verified" when the database refused the number. */
function unverifiedRefusal(error: unknown): never {
  throw isUnverifiedNumberRefusal(error) ? businessNotVerified() : error;
}

/** Generating and listing a business's virtual accounts. */
export class AccountService {
  private readonly now: Clock;
  /** The rule of a temporary account's body, with this server's MAX_TRANSFER_KOBO. */
  readonly temporaryInput: ReturnType<typeof temporaryInput>;

  constructor(private readonly options: AccountServiceOptions) {
    this.now = options.now ?? Date.now;
    this.temporaryInput = temporaryInput(options.maxTransferKobo);
  }

  /**
   * Issues a permanent account for the customer, or re-issues the existing one (one per
   * business and email): `created` tells which. The provider is called first and nothing is
   * written unless it issued a number. Given the request's unit of work, its one write stores
   * the answer, and the bank is sent the reference claimed with the request.
   */
  async generatePermanent(
    forBusiness: ForBusiness,
    actor: Actor,
    input: PermanentInput,
    unit?: UnitOfWork,
  ): Promise<GeneratedPermanent> {
    const business = { ...forBusiness, actor };
    const reference = unit?.reference ?? randomUUID();
    const issued = await this.issue(business, input, reference);
    const account: PermanentAccount = {
      bankName: this.options.provider.bankName,
      accountNumber: issued.accountNumber,
      accountName: issued.accountName,
      userName: input.name,
    };
    const now = isoNow(this.now);
    return this.options.writes
      .createOrReissue<GeneratedPermanent>(
        this.newAccount(business, "permanent", input, issued, now),
        this.numberIssued(business, issued.accountNumber, reference, now),
        { created: true, account },
        (existing) => ({
          fields: {
            accountNumber: issued.accountNumber,
            accountName: issued.accountName,
            customerName: input.name,
            ...this.identityOf(input.identity, input.second),
            updatedAt: now,
            // The next version of the account's number; a re-issue also reactivates: the
            // customer's new number takes payments.
            version: existing.version + 1,
            deactivatedAt: null,
          },
          event: eventToWrite(
            {
              businessId: business.businessId,
              type: "account.reissued",
              accountNumber: issued.accountNumber,
              data: {
                email: existing.email,
                previousAccountNumber: existing.accountNumber,
                accountNumber: issued.accountNumber,
                accountName: issued.accountName,
                bankName: this.options.provider.bankName,
                reissuedAt: now,
              },
            },
            now,
          ),
          result: { created: false, account },
        }),
        unit,
      )
      .catch(unverifiedRefusal);
  }

  /** Creates a new temporary account that expires `duration` minutes after creation. */
  async generateTemporary(
    forBusiness: ForBusiness,
    actor: Actor,
    input: TemporaryInput,
    unit?: UnitOfWork,
  ): Promise<TemporaryAccount> {
    const business = { ...forBusiness, actor };
    const reference = unit?.reference ?? randomUUID();
    const issued = await this.issue(business, input, reference);
    const now = this.now();
    const createdAt = new Date(now).toISOString();
    const expiresAt = new Date(now + input.durationMinutes * 60_000).toISOString();
    const account: TemporaryAccount = {
      accountNumber: issued.accountNumber,
      accountName: issued.accountName,
      userName: input.name,
      email: input.email,
      bankName: this.options.provider.bankName,
      isTemporary: true,
      createdAt,
      expiresAt,
      expiresInMinutes: input.durationMinutes,
      expectedAmount: input.expectedAmount,
      amountPolicy: input.amountPolicy,
    };
    return this.options.writes
      .createTemporary(
        {
          ...this.newAccount(business, "temporary", input, issued, createdAt),
          kind: "temporary",
          durationMinutes: input.durationMinutes,
          expiresAt,
          expectedAmount: input.expectedAmount,
          amountPolicy: input.amountPolicy,
        },
        this.numberIssued(business, issued.accountNumber, reference, createdAt),
        account,
        unit,
      )
      .catch(unverifiedRefusal);
  }

  /**
   * One page of the business's accounts, newest first. Accounts carry dense per-business
   * ordinals and the business row keeps the count, so any page is an index range read; the
   * count and the page are read in one statement, so they always agree.
   */
  async list(
    business: ForBusiness,
    { page, limit }: ListQuery,
  ): Promise<{ items: AccountSummary[]; pagination: Pagination }> {
    // Any skip at or past the total reads no rows: a page number too large to multiply exactly
    // skips as many as can be counted.
    const skip = Math.min((page - 1) * limit, Number.MAX_SAFE_INTEGER);
    const { total, rows } = await this.options.storage.hot.accountPage(business.businessId, skip, limit);
    const now = this.now();
    const items = rows.map((row) => accountSummary(row, this.options.provider.bankName, now));
    return { items, pagination: { page, limit, total, pages: Math.ceil(total / limit) } };
  }

  /** The business's permanent account for this (already checked) email, if any: its number and whether it is deactivated. */
  async permanentFor(
    business: ForBusiness,
    email: string,
  ): Promise<{ accountNumber: string; deactivated: boolean } | undefined> {
    const row = await findPermanentByEmail(this.options.storage.db, business.businessId, email);
    return row && { accountNumber: row.accountNumber, deactivated: row.deactivatedAt !== null };
  }

  /**
   * The dashboard's search: the account this number was issued to (10 digits: its number now,
   * or one a re-issue retired), or the accounts with this email (newest first, at most
   * `limit`). Anything else finds nothing.
   */
  async search(business: ForBusiness, text: string, limit = 50): Promise<AccountSummary[]> {
    const query = text.trim();
    const db = this.options.storage.db;
    let rows: ListedAccount[];
    if (/^\d{10}$/.test(query)) {
      const row = await findAccountByAnyNumber(db, business.businessId, query);
      rows = row ? [row] : [];
    } else {
      const email = emailSchema.safeParse(query);
      rows = email.success ? await accountsByEmail(db, business.businessId, email.data, limit) : [];
    }
    const now = this.now();
    return rows.map((row) => accountSummary(row, this.options.provider.bankName, now));
  }

  /**
   * Asks the bank for a number, once the business is verified (`completed`): whichever front
   * asks (a key, the dashboard, the SDK), an unverified or suspended business opens nothing at
   * the bank. The write refuses it again under the business's row (migration 0037), so a
   * suspension that lands between this read and the write still wins.
   */
  private async issue(
    business: ForBusiness,
    input: PermanentInput,
    reference: string,
  ): Promise<IssuedVirtualAccount> {
    // Seen verified a moment ago (the API's authenticator) or read now: either way within the
    // bound a status change takes to reach every process; the write refuses it in any case.
    const seen = business.verifiedAsOf !== undefined && this.now() - business.verifiedAsOf <= VERIFIED_FOR_MS;
    if (!seen && (await this.options.storage.hot.verificationStatus(business.businessId)) !== "completed") {
      throw businessNotVerified();
    }
    // The holder's name against the bank's record of each identity, as an identity added later is.
    await Promise.all(
      [input.identity, ...(input.second ? [input.second] : [])].map((identity) =>
        checkIdentity(this.options.identities, identity, input.name),
      ),
    );
    try {
      return await this.options.provider.createVirtualAccount({
        identityType: input.identity.type === "bvn" ? "personal" : "personal_nin",
        licenseNumber: input.identity.number,
        virtualAccountName: `${business.businessName}/${input.name}`,
        customerName: input.name,
        email: input.email,
        accountReference: reference,
      });
    } catch (error) {
      if (isAppError(error) || isStorageUnavailable(error)) throw error;
      throw providerUnavailable(error);
    }
  }

  /** A new account, as generate creates it (a temporary one adds its expiry and amount). */
  private newAccount(
    business: ForBusiness,
    kind: "permanent" | "temporary",
    input: PermanentInput,
    issued: IssuedVirtualAccount,
    now: string,
  ): AccountToCreate {
    return {
      id: randomUUID(),
      businessId: business.businessId,
      kind,
      accountNumber: issued.accountNumber,
      accountName: issued.accountName,
      customerName: input.name,
      email: input.email,
      ...this.identityOf(input.identity, input.second),
      version: 1,
      createdAt: now,
      updatedAt: now,
      allowedPayers: input.allowedPayers ?? null,
      onMismatch: input.onMismatch ?? "decline",
    };
  }

  /** What the number ledger records of an issue, less the account it went to. */
  private numberIssued(
    business: Issuer,
    accountNumber: string,
    reference: string,
    now: string,
  ): NumberToRecord {
    return {
      accountNumber,
      reference,
      issuedAt: now,
      issuedByType: business.actor.type,
      issuedById: business.actor.id,
    };
  }

  /** The identities as the account keeps them (fingerprints and last 4 digits), and the tier they give it. */
  private identityOf(identity: Identity, second: Identity | null | undefined): AccountIdentity {
    return {
      identityType: identity.type,
      identityFingerprint: fingerprint(this.options.fingerprintKey, identity),
      identityLast4: identity.number.slice(-4),
      secondIdentityFingerprint: second ? fingerprint(this.options.fingerprintKey, second) : null,
      secondIdentityLast4: second ? second.number.slice(-4) : null,
      tier: identityTier(second ? 2 : 1),
    };
  }
}
