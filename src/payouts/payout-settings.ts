import { type Clock, isoNow } from "../clock.js";
import { lagosDayStart } from "../core/lagos-time.js";
import { insufficientBalance, payoutLimitExceeded } from "../core/money-out-errors.js";
import { AppError, validationFailed } from "../errors.js";
import { type ChargeLine, chargeLines, payoutCharges } from "../ledger/charges.js";
import { heldFor } from "../ledger/holds.js";
import { formatNaira } from "../ledger/kobo.js";
import type { PayoutTermsRecord } from "../ledger/ledger-records.js";
import {
  aboveCaps,
  CBN_PAYOUT_FEE_CAPS,
  checkPayoutFeeTiers,
  DEFAULT_PAYOUT_FEE_TIERS,
  type PayoutFeeTier,
  PayoutFeeTiersError,
  payoutFee,
} from "../ledger/payout-fees.js";
import { payoutIpsOf, updatePayoutIps } from "../storage/api-key-repository.js";
import { readPayoutFeeTiers, updatePayoutFeeTiers } from "../storage/business-repository.js";
import { readChargeSchedule } from "../storage/charge-repository.js";
import type { Storage } from "../storage/database.js";
import { ledgerBalances } from "../storage/ledger-repository.js";
import { payoutTermsOf, payoutVolumeSince, updatePayoutTerms } from "../storage/payout-repository.js";
import { writeTransaction } from "../storage/transactions.js";
import { PayoutIpsError, parsePayoutIps } from "./payout-ips.js";
import { LIMIT_COUNTS } from "./payout-model.js";

export interface PayoutSettingsOptions {
  storage: Storage;
  now?: Clock;
  /** The caps a business's fee tiers stay within unless the operator says otherwise (default: the CBN's). */
  feeCaps?: readonly PayoutFeeTier[];
}

/** The most one payout may be unless the operator sets another: NGN 5,000,000. */
export const DEFAULT_PAYOUT_LIMIT_KOBO = 500_000_000;
/** The most a business's payouts may total in a day (Africa/Lagos) unless set: NGN 50,000,000. */
export const DEFAULT_PAYOUT_DAILY_LIMIT_KOBO = 5_000_000_000;

/** Whether a business may send payouts through the API, and the most it may send. */
export interface PayoutTerms {
  apiPayouts: boolean;
  /** Kobo: the most one payout may be. */
  perPayoutLimit: number;
  /** Kobo: the most the business's payouts may total in a day (Africa/Lagos). */
  dailyLimit: number;
  /** Whether each limit is the documented default (not set for this business). */
  defaults: { perPayoutLimit: boolean; dailyLimit: boolean };
}

/** The terms in a business's row: its own limits, or the defaults. */
export function termsOf(row: PayoutTermsRecord): PayoutTerms {
  return {
    apiPayouts: Number(row.payouts_enabled) === 1,
    perPayoutLimit:
      row.payout_limit_kobo === null ? DEFAULT_PAYOUT_LIMIT_KOBO : Number(row.payout_limit_kobo),
    dailyLimit:
      row.payout_daily_limit_kobo === null
        ? DEFAULT_PAYOUT_DAILY_LIMIT_KOBO
        : Number(row.payout_daily_limit_kobo),
    defaults: {
      perPayoutLimit: row.payout_limit_kobo === null,
      dailyLimit: row.payout_daily_limit_kobo === null,
    },
  };
}

/** The fee tiers in a business's row (JSON written by setFeeTiers only; checked again so a hand-edited row fails loudly). */
export function feeTiersOf(stored: string | null): readonly PayoutFeeTier[] {
  if (stored === null) return DEFAULT_PAYOUT_FEE_TIERS;
  const tiers = JSON.parse(stored) as PayoutFeeTier[];
  checkPayoutFeeTiers(tiers);
  return tiers;
}

/** A business's payout settings that the operator sets: its fee, its limits, and (with its owner) the API switch. */
export class PayoutSettings {
  private readonly now: Clock;

  constructor(private readonly options: PayoutSettingsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The business's payout fee tiers: its own, or the default. 400 when there is no such business. */
  async feeTiers(businessId: string): Promise<{ tiers: readonly PayoutFeeTier[]; isDefault: boolean }> {
    const stored = await readPayoutFeeTiers(this.options.storage.db, businessId);
    if (stored === undefined) throw validationFailed(`no business has id ${businessId}`);
    return { tiers: feeTiersOf(stored), isDefault: stored === null };
  }

  /** What a payout of `amount` kobo would cost the business now: shown before it is confirmed. */
  async feeFor(businessId: string, amount: number): Promise<number> {
    return payoutFee((await this.feeTiers(businessId)).tiers, amount);
  }

  /**
   * What a payout of `amount` kobo from the dashboard would meet now, before anything is held or
   * any code asked (the review, issue 43 item 6): its fee, or the refusal the hold would give, in
   * naira, beside the amount: the limit of one payout, the day's limit, the available balance.
   * The hold checks each again under the ledger's locks; this only says it first.
   */
  async preview(businessId: string, amount: number): Promise<{ fee: number; charges: ChargeLine[] }> {
    const { db } = this.options.storage;
    const row = await payoutTermsOf(db, businessId);
    if (!row) throw validationFailed(`no business has id ${businessId}`);
    const { perPayoutLimit, dailyLimit } = termsOf(row);
    const fee = payoutFee(feeTiersOf(row.payout_fee_tiers), amount);
    const charged = payoutCharges(amount, fee, await readChargeSchedule(db));
    const charges = chargeLines(charged);
    const needed = heldFor(amount, fee, charged);
    const beside = (error: AppError) =>
      new AppError(error.code, error.statusCode, error.message, { fields: { amount: error.message } });
    if (amount > perPayoutLimit) {
      throw beside(
        payoutLimitExceeded(
          `${formatNaira(amount)} is above your limit of ${formatNaira(perPayoutLimit)} for one payout`,
        ),
      );
    }
    const today = await payoutVolumeSince(db, businessId, lagosDayStart(this.now()), LIMIT_COUNTS);
    if (today + amount > dailyLimit) {
      throw beside(
        payoutLimitExceeded(
          `${formatNaira(amount)} would bring today's payouts to ${formatNaira(today + amount)}, above your daily limit of ${formatNaira(dailyLimit)}`,
        ),
      );
    }
    const { available } = await ledgerBalances(db, businessId);
    if (available < needed) {
      const what = charges.length > 0 ? "its fee and charges" : `its fee of ${formatNaira(fee)}`;
      throw beside(
        insufficientBalance(
          `${formatNaira(amount)} and ${what} come to ${formatNaira(needed)}, more than your available balance of ${formatNaira(available)}`,
        ),
      );
    }
    return { fee, charges };
  }

  /** The business's API switch and limits. 400 when there is no such business. */
  async terms(businessId: string): Promise<PayoutTerms> {
    const row = await payoutTermsOf(this.options.storage.db, businessId);
    if (!row) throw validationFailed(`no business has id ${businessId}`);
    return termsOf(row);
  }

  /** Turns payouts through the API on or off: every process reads it on each payout, so it applies at once. */
  async setApiPayouts(businessId: string, on: boolean): Promise<void> {
    await this.update(businessId, { payouts_enabled: on ? 1 : 0 });
  }

  /** Sets the limits in kobo (null: back to the default; undefined: unchanged). */
  async setLimits(
    businessId: string,
    limits: { perPayoutLimit?: number | null; dailyLimit?: number | null },
  ): Promise<void> {
    for (const value of [limits.perPayoutLimit, limits.dailyLimit]) {
      if (value !== undefined && value !== null && (!Number.isSafeInteger(value) || value < 1)) {
        throw validationFailed("a payout limit must be a whole number of kobo, 1 or more");
      }
    }
    await this.update(businessId, {
      ...(limits.perPayoutLimit !== undefined ? { payout_limit_kobo: limits.perPayoutLimit } : {}),
      ...(limits.dailyLimit !== undefined ? { payout_daily_limit_kobo: limits.dailyLimit } : {}),
    });
  }

  private async update(businessId: string, terms: Parameters<typeof updatePayoutTerms>[2]): Promise<void> {
    const updated = await writeTransaction(this.options.storage, (trx) =>
      updatePayoutTerms(trx, businessId, terms, isoNow(this.now)),
    );
    if (!updated) throw validationFailed(`no business has id ${businessId}`);
  }

  /**
   * Sets the tiers (null: back to the default); every future payout of the business pays them.
   * Tiers above the fee caps (the CBN's by default) are refused unless `aboveCaps` says the
   * operator means it.
   */
  async setFeeTiers(
    businessId: string,
    tiers: readonly PayoutFeeTier[] | null,
    { aboveCaps: allowed = false }: { aboveCaps?: boolean } = {},
  ): Promise<void> {
    if (tiers !== null) {
      try {
        checkPayoutFeeTiers(tiers);
      } catch (error) {
        if (error instanceof PayoutFeeTiersError) throw validationFailed(error.message);
        throw error;
      }
      const above = aboveCaps(tiers, this.options.feeCaps ?? CBN_PAYOUT_FEE_CAPS);
      if (above !== undefined && !allowed)
        throw validationFailed(`${above} (the CBN's caps on a transfer's fee): say so to charge above them`);
    }
    const stored = tiers === null ? null : JSON.stringify(tiers.map(({ upTo, fee }) => ({ upTo, fee })));
    const updated = await writeTransaction(this.options.storage, (trx) =>
      updatePayoutFeeTiers(trx, businessId, stored, isoNow(this.now)),
    );
    if (!updated) throw validationFailed(`no business has id ${businessId}`);
  }

  /** The addresses the key may send payouts from (null: any). 400 when there is no such key. */
  async keyPayoutIps(keyId: string): Promise<readonly string[] | null> {
    const stored = await payoutIpsOf(this.options.storage.db, keyId);
    if (stored === undefined) throw validationFailed(`no API key has id ${keyId}`);
    return stored === null ? null : (JSON.parse(stored) as string[]);
  }

  /** Limits the key's payouts and refunds to these addresses (`"a, b/24"`), or (null) lets any send them. */
  async setKeyPayoutIps(keyId: string, ips: string | null): Promise<readonly string[] | null> {
    let entries: string[] | null = null;
    if (ips !== null) {
      try {
        entries = parsePayoutIps(ips);
      } catch (error) {
        if (error instanceof PayoutIpsError) throw validationFailed(error.message);
        throw error;
      }
    }
    const stored = entries === null ? null : JSON.stringify(entries);
    const updated = await writeTransaction(this.options.storage, (trx) =>
      updatePayoutIps(trx, keyId, stored, isoNow(this.now)),
    );
    if (!updated) throw validationFailed(`no API key has id ${keyId}`);
    return entries;
  }
}
