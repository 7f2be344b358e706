import { type Clock, isoNow } from "../clock.js";
import type { Actor, ForBusiness } from "../core/actor.js";
import type { AccountDetail, AmountPolicy, OnMismatch } from "../core/api-types.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { ListedAccount } from "../core/listed-account.js";
import type { UnitOfWork } from "../core/unit-of-work.js";
import { check } from "../core/validation.js";
import {
  AppError,
  accountNotFound,
  accountNotPermanent,
  accountNumberRetired,
  ErrorCode,
  isAppError,
  providerUnavailable,
  validationFailed,
} from "../errors.js";
import { recordEvent } from "../events/outbox.js";
import type { AccountProvider, IdentityRegistry } from "../providers/account-provider.js";
import {
  addSecondIdentity,
  findAccountByAnyNumber,
  findAccountById,
  findCurrentAccount,
  numbersOfAccount,
  setKycLevel,
  updateAccount,
} from "../storage/account-repository.js";
import type { Storage } from "../storage/database.js";
import { isStorageUnavailable } from "../storage/errors.js";
import { accountsDueExpiredEvent, markExpiredEvent } from "../storage/event-repository.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";
import { accountSummary } from "./account-service.js";
import { applyAccountUpdate } from "./account-update.js";
import { allowedPayersOf } from "./allowed-payers.js";
import { paymentProgress } from "./amount-policy.js";
import { checkIdentity, fingerprint, LABEL } from "./identity-check.js";
import { identityTier, type Tier } from "./tiers.js";
import { type AccountUpdate, accountNumberSchema, type Identity } from "./validation.js";

export type { AccountDetail };

/** A number an account has had: `retiredAt` is null for its number now. */
export interface IssuedNumber {
  accountNumber: string;
  /** 1 at creation, +1 at each re-issue. */
  version: number;
  issuedAt: string;
  retiredAt: string | null;
}

/** An account as its detail reads it (storage's account reads select its columns under these names). */
interface AccountRecord extends ListedAccount {
  id: string;
  businessId: string;
  /** Kobo (null: it takes any transfers). */
  expectedAmount: number | null;
  amountPolicy: AmountPolicy | null;
  /** JSON of AllowedPayer[] (null: anyone), and what a mismatch becomes (issue 46, item 6). */
  allowedPayers: string | null;
  onMismatch: OnMismatch;
  /** Kobo received, all transfers, gross of fees. */
  totalReceived: number;
  /** Its KYC tier (tiers.ts). */
  tier: number;
}

export interface AccountLifecycleOptions {
  storage: Storage;
  /** What chaining and claiming deliveries needs of the dialect (the stores' `deliveries`). */
  deliveries: DeliveryDialect<Executor>;
  provider: AccountProvider;
  /** The bank's identity call, and the key of the fingerprints kept for identities (issue 46). */
  identities: IdentityRegistry;
  fingerprintKey: Buffer;
  now?: Clock;
}

/** An account's detail, and deactivating and reactivating permanent accounts. */
export class AccountLifecycle {
  private readonly now: Clock;

  constructor(private readonly options: AccountLifecycleOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The business's account whose current number this is. Another business's or an unknown number
   * is 404 ACCOUNT_NOT_FOUND; one of its own that a re-issue retired is 404 ACCOUNT_RETIRED,
   * naming the account's number now.
   */
  async get(business: ForBusiness, accountNumber: string): Promise<AccountDetail> {
    const { db } = this.options.storage;
    const number = parseNumber(accountNumber);
    const row = await findCurrentAccount(db, business.businessId, number);
    if (row) return this.detail(row);
    const replaced = await findAccountByAnyNumber(db, business.businessId, number);
    throw replaced ? accountNumberRetired(replaced.accountNumber) : accountNotFound();
  }

  /**
   * Every number the business's account with this current number has had, its current one
   * first: each with when it was issued and, for the earlier ones, retired by a re-issue.
   */
  async numbers(business: ForBusiness, accountNumber: string): Promise<IssuedNumber[]> {
    const { db } = this.options.storage;
    const row = await findCurrentAccount(db, business.businessId, parseNumber(accountNumber));
    if (!row) throw accountNotFound();
    return (await numbersOfAccount(db, row.id)).map((issued) => ({
      accountNumber: issued.accountNumber,
      version: Number(issued.version),
      issuedAt: issued.issuedAt,
      retiredAt: issued.retiredAt,
    }));
  }

  /**
   * Stops (deactivate) or restarts (reactivate) a permanent account taking payments: the bank
   * is told first, then the account is marked. Doing it twice is harmless. Transfers are
   * refused by the acceptance rules whatever the bank does, so the database is what decides.
   */
  async setActive(
    business: ForBusiness,
    _actor: Actor,
    accountNumber: string,
    active: boolean,
    unit?: UnitOfWork,
  ): Promise<AccountDetail> {
    const number = parseNumber(accountNumber);
    const found = await findCurrentAccount(this.options.storage.db, business.businessId, number);
    if (!found) throw accountNotFound();
    if (found.kind !== "permanent") throw accountNotPermanent();
    try {
      await this.options.provider.setAccountEnabled(number, active);
    } catch (error) {
      if (isAppError(error) || isStorageUnavailable(error)) throw error;
      throw providerUnavailable(error);
    }
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        // A re-issue may have replaced the number meanwhile: then it is no longer this account's.
        const row = await findCurrentAccount(trx, business.businessId, number);
        if (!row) throw accountNotFound();
        const deactivated = row.deactivatedAt !== null;
        if (deactivated === !active) return this.detail(row);
        const now = isoNow(this.now);
        const deactivatedAt = active ? null : now;
        await updateAccount(trx, row.id, { deactivatedAt, updatedAt: now });
        const detail = this.detail({ ...row, deactivatedAt });
        await recordEvent(
          trx,
          this.options.deliveries,
          {
            businessId: business.businessId,
            type: active ? "account.reactivated" : "account.deactivated",
            accountNumber: number,
            data: detail,
          },
          now,
        );
        return detail;
      },
      unit,
    );
  }

  /** Changes who may pay into a permanent or temporary account, and what a mismatch becomes (account-update.ts). */
  update(business: ForBusiness, _actor: Actor, number: string, update: AccountUpdate, unit?: UnitOfWork) {
    const context = { ...this.options, now: this.now, detail: (row: AccountRecord) => this.detail(row) };
    return applyAccountUpdate(context, business, parseNumber(number), update, unit);
  }

  /**
   * Adds the identity an account lacks (a NIN to one opened with a BVN, or a BVN to one opened
   * with a NIN), once the bank's record of it is in the holder's name (identity-check.ts), and
   * raises its tier (issue 46). The same identity again answers the account as it is; another
   * once it holds both, or the kind it holds already, is 409 CONFLICT.
   */
  async addIdentity(
    business: ForBusiness,
    _actor: Actor,
    accountNumber: string,
    identity: Identity,
    unit?: UnitOfWork,
  ): Promise<AccountDetail> {
    const number = parseNumber(accountNumber);
    const { db } = this.options.storage;
    const found = await findCurrentAccount(db, business.businessId, number);
    if (!found) throw accountNotFound();
    const print = fingerprint(this.options.fingerprintKey, identity);
    if (found.secondIdentityFingerprint !== null) {
      if (found.secondIdentityFingerprint === print) return this.detail(found);
      throw bothHeld();
    }
    if (identity.type === found.identityType) {
      const missing = identity.type === "bvn" ? "nin" : "bvn";
      throw new AppError(
        ErrorCode.CONFLICT,
        409,
        `The account holds a ${LABEL[identity.type]} already: send its ${LABEL[missing]} (${missing})`,
      );
    }
    await checkIdentity(this.options.identities, identity, found.customerName);
    return writeTransaction(
      this.options.storage,
      async (trx) => {
        const row = await findCurrentAccount(trx, business.businessId, number);
        if (!row) throw accountNotFound();
        const tier = Math.max(Number(row.tier), identityTier(2));
        const added = await addSecondIdentity(trx, row.id, {
          fingerprint: print,
          last4: identity.number.slice(-4),
          tier,
          updatedAt: isoNow(this.now),
        });
        if (added) return this.detail({ ...row, tier });
        // Another request added one first: the same identity is this one's answer too.
        const now = await findCurrentAccount(trx, business.businessId, number);
        if (now?.secondIdentityFingerprint !== print) throw bothHeld();
        return this.detail(now);
      },
      unit,
    );
  }

  /**
   * The operator's KYC level of a business (issue 46): its accounts' tiers are at least `tier`
   * (null: no level, each account's tier its identities'), the accounts it has now and those it
   * opens or re-issues later; a level below an account's identities leaves that account's tier.
   */
  async setKycLevel(businessId: string, tier: Tier | null): Promise<void> {
    const floor = tier ?? 1;
    const set = await writeTransaction(this.options.storage, (trx) =>
      setKycLevel(trx, businessId, {
        kycTier: tier,
        oneIdentity: Math.max(identityTier(1), floor),
        twoIdentities: Math.max(identityTier(2), floor),
        updatedAt: isoNow(this.now),
      }),
    );
    if (!set) throw validationFailed(`no business has id ${businessId}`);
  }

  private detail(account: AccountRecord): AccountDetail {
    const expected = account.expectedAmount === null ? null : Number(account.expectedAmount);
    return {
      ...accountSummary(account, this.options.provider.bankName, this.now()),
      expectedAmount: expected,
      amountPolicy: account.amountPolicy,
      allowedPayers: allowedPayersOf(account.allowedPayers),
      onMismatch: account.onMismatch,
      totalReceived: Number(account.totalReceived),
      ...paymentProgress(expected, Number(account.totalReceived)),
      tier: Number(account.tier),
    };
  }

  /**
   * Emits account.expired for temporary accounts past their expiry (up to `batch` of them), once
   * each whichever process gets there first: the mark and the event commit together, and a
   * process that finds the mark already set skips the account. Returns how many it emitted.
   */
  async emitExpirations(batch = 100): Promise<number> {
    const { storage } = this.options;
    const bankName = this.options.provider.bankName;
    const now = isoNow(this.now);
    let emitted = 0;
    for (const due of await accountsDueExpiredEvent(storage.db, now, batch)) {
      const done = await writeTransaction(storage, async (trx) => {
        if (!(await markExpiredEvent(trx, due.id, now))) return false;
        const account = await findAccountById(trx, due.id);
        if (!account) return false;
        await recordEvent(
          trx,
          this.options.deliveries,
          {
            businessId: account.businessId,
            type: "account.expired",
            accountNumber: account.accountNumber,
            data: accountSummary(account, bankName, this.now()),
          },
          now,
        );
        return true;
      });
      if (done) emitted++;
    }
    return emitted;
  }
}

const bothHeld = () =>
  new AppError(ErrorCode.CONFLICT, 409, "The account holds a BVN and a NIN already; neither can be changed");

/** A path's account number: 10 digits, or a 400 that says so (the route already matches only those). */
const ACCOUNT_NUMBER_SCHEMA = accountNumberSchema("accountNumber");
const parseNumber = (value: string) => check(ACCOUNT_NUMBER_SCHEMA, value);
