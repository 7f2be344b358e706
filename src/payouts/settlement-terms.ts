import { type Clock, isoNow } from "../clock.js";
import type { Actor } from "../core/actor.js";
import type { SettlementSchedule, SettlementTerms } from "../core/api-types.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import { namesLookAlike } from "../core/name-match.js";
import { check } from "../core/validation.js";
import { AppError, ErrorCode, validationFailed } from "../errors.js";
import { recordEvent } from "../events/outbox.js";
import { findBusiness } from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { settlementTermsOf, writeSettlementTerms } from "../storage/settlement-repository.js";
import { writeTransaction } from "../storage/transactions.js";
import { findBusinessProfile, insertActorAudit } from "../storage/user-repository.js";
import { accountAtBankQuery, type BankService } from "./banks.js";

// A business's settlement account, schedule and reserve (issue 26, item 6). The account is named
// by the bank's name enquiry when it is set; a change is audited, tells the business's webhooks
// (`settlement_account.updated`), and starts a cool-off (SETTLEMENT_COOL_OFF_HOURS, 24 by
// default) before any settlement goes to it: a stolen session that changes the account cannot
// take the next settlement with it.

export const SETTLEMENT_SCHEDULES: readonly SettlementSchedule[] = ["manual", "daily", "instant"];
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

export interface SettlementTermsOptions {
  storage: Storage;
  deliveries: DeliveryDialect<Executor>;
  banks: BankService;
  /** How long after a change of account no settlement goes to it. */
  coolOffMs: number;
  now?: Clock;
}

/** A business's terms as stored (storage's settlementTermsOf selects its columns under these names). */
interface StoredTerms {
  bankCode: string | null;
  bankName: string | null;
  accountNumber: string | null;
  /** The name the bank's name enquiry gave when the account was set. */
  accountName: string | null;
  accountSetAt: string | null;
  schedule: SettlementSchedule;
  /** `HH:MM` in Africa/Lagos, for a daily schedule. */
  dailyAt: string | null;
  /** Kobo kept back from each settlement. */
  reserveKobo: number;
}

/** The terms as the business stored them (none: manual, no account). */
export function settlementTermsView(stored: StoredTerms | undefined, coolOffMs: number): SettlementTerms {
  const account =
    stored?.accountNumber && stored.bankCode && stored.bankName && stored.accountName && stored.accountSetAt
      ? {
          bankCode: stored.bankCode,
          bankName: stored.bankName,
          accountNumber: stored.accountNumber,
          accountName: stored.accountName,
          setAt: stored.accountSetAt,
          usableFrom: new Date(Date.parse(stored.accountSetAt) + coolOffMs).toISOString(),
        }
      : null;
  return {
    account,
    schedule: stored?.schedule ?? "manual",
    dailyAt: stored?.schedule === "daily" ? stored.dailyAt : null,
    reserve: Number(stored?.reserveKobo ?? 0),
  };
}

/** Where a business's settlements go, when, and what they keep back. */
export class SettlementTermsService {
  private readonly accountListeners: Array<(businessId: string, terms: SettlementTerms) => unknown> = [];
  private readonly now: Clock;

  constructor(private readonly options: SettlementTermsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** How long after a change of account no settlement goes to it, in hours (SETTLEMENT_COOL_OFF_HOURS). */
  get coolOffHours(): number {
    return this.options.coolOffMs / 3_600_000;
  }

  /** Whether the account is still in its cool-off now. */
  isCoolingOff(terms: SettlementTerms): boolean {
    return terms.account !== null && this.now() < Date.parse(terms.account.usableFrom);
  }

  async terms(businessId: string): Promise<SettlementTerms> {
    return settlementTermsView(
      await settlementTermsOf(this.options.storage.db, businessId),
      this.options.coolOffMs,
    );
  }

  /**
   * The business's name when `accountName` does not look like it (core/name-match.ts): its
   * registered name from its verification details, or its name; undefined when it looks alike.
   */
  async nameOf(businessId: string, accountName: string): Promise<string | undefined> {
    const { db } = this.options.storage;
    const [profile, business] = await Promise.all([
      findBusinessProfile(db, businessId),
      findBusiness(db, businessId),
    ]);
    const names = [profile?.registeredName, business?.name].filter((name): name is string => !!name);
    if (names.some((name) => namesLookAlike(accountName, name))) return undefined;
    return names[0];
  }

  /**
   * Sets the account settlements go to, named by the bank (400 for a malformed number or an
   * unknown bank, 422 ACCOUNT_NOT_RESOLVED): in one transaction, the terms, the audit entry and
   * the `settlement_account.updated` event. Setting the same account again changes nothing.
   */
  async setAccount(
    businessId: string,
    actor: Actor,
    at: { bankCode: string; accountNumber: string; nameDiffersConfirmed?: boolean },
    /** Runs once the account is checked, before anything is written (the dashboard asks the member's code here). */
    confirmed: () => Promise<void> = async () => {},
  ): Promise<SettlementTerms> {
    const { storage, coolOffMs } = this.options;
    const account = await this.options.banks.resolve(check(accountAtBankQuery, at));
    // An account in another name than the business's is where its money would leave it: a
    // member of the business confirms it is theirs (the CLI is the operator's, who checked).
    if (actor.type === "user" && !at.nameDiffersConfirmed) {
      const expected = await this.nameOf(businessId, account.accountName);
      if (expected !== undefined) {
        const message = `This account is in the name of ${account.accountName}, not ${expected}: tick the box to confirm it is your business's own`;
        throw new AppError(ErrorCode.CONFLICT, 409, message, { fields: { nameDiffers: message } });
      }
    }
    await confirmed();
    const before = settlementTermsView(await settlementTermsOf(storage.db, businessId), coolOffMs);
    if (
      before.account?.bankCode === account.bankCode &&
      before.account.accountNumber === account.accountNumber
    ) {
      return before;
    }
    await writeTransaction(storage, async (trx) => {
      const now = isoNow(this.now);
      await writeSettlementTerms(trx, businessId, {
        bankCode: account.bankCode,
        bankName: account.bankName,
        accountNumber: account.accountNumber,
        accountName: account.accountName,
        accountSetAt: now,
        updatedAt: now,
      });
      const after = settlementTermsView(await settlementTermsOf(trx, businessId), coolOffMs);
      const previous = before.account && {
        bankCode: before.account.bankCode,
        bankName: before.account.bankName,
        accountNumber: before.account.accountNumber,
        accountName: before.account.accountName,
      };
      await insertActorAudit(trx, {
        actor,
        businessId,
        action: "settlement_account.updated",
        detail: { ...account, previous },
        at: now,
      });
      await recordEvent(
        trx,
        this.options.deliveries,
        {
          businessId,
          type: "settlement_account.updated",
          accountNumber: null,
          data: { ...after.account, previous },
        },
        now,
      );
    });
    const terms = await this.terms(businessId);
    for (const listener of this.accountListeners) {
      await Promise.resolve()
        .then(() => listener(businessId, terms))
        .catch(() => {});
    }
    return terms;
  }

  /** Calls `listener` after a settlement account is changed (the business's mail). */
  onAccountChanged(listener: (businessId: string, terms: SettlementTerms) => unknown): void {
    this.accountListeners.push(listener);
  }

  /** Sets the schedule: `manual`, `daily` at `dailyAt` (HH:MM, Africa/Lagos) or `instant`, and the reserve in kobo. */
  async setSchedule(
    businessId: string,
    actor: Actor,
    input: { schedule: string; dailyAt?: string | undefined; reserve?: number | undefined },
  ): Promise<SettlementTerms> {
    const schedule = SETTLEMENT_SCHEDULES.find((candidate) => candidate === input.schedule);
    if (!schedule) throw validationFailed("schedule must be manual, daily or instant");
    if (schedule === "daily" && !TIME_OF_DAY.test(input.dailyAt ?? "")) {
      throw validationFailed("a daily schedule needs its time as HH:MM (24-hour, Africa/Lagos), like 17:00");
    }
    const before = await this.terms(businessId);
    const reserve = input.reserve ?? before.reserve;
    if (!Number.isSafeInteger(reserve) || reserve < 0) {
      throw validationFailed("the reserve must be a whole number of kobo, 0 or more");
    }
    await writeTransaction(this.options.storage, async (trx) => {
      const now = isoNow(this.now);
      const dailyAt = schedule === "daily" ? (input.dailyAt as string) : null;
      await writeSettlementTerms(trx, businessId, {
        schedule,
        dailyAt,
        reserveKobo: reserve,
        updatedAt: now,
      });
      await insertActorAudit(trx, {
        actor,
        businessId,
        action: "settlement_schedule.updated",
        detail: { schedule, dailyAt, reserve },
        at: now,
      });
    });
    return this.terms(businessId);
  }
}
