import { randomUUID } from "node:crypto";
import type { Clock } from "../clock.js";
import { type TransactionPage, viewsOf } from "../collections/transaction-listing.js";
import type { ForBusiness } from "../core/actor.js";
import type { Pagination, PayoutStatus, Settlement, SettlementSchedule } from "../core/api-types.js";
import { lagosDate, lagosTimeOfDay } from "../core/lagos-time.js";
import {
  nothingToSettle,
  settlementAccountCoolingOff,
  settlementAccountMissing,
  settlementNotFound,
} from "../core/money-out-errors.js";
import { type ListQuery, listOffset } from "../core/validation.js";
import { ErrorCode, isAppError, validationFailed } from "../errors.js";
import { type ChargeLine, chargeLines, payoutCharges } from "../ledger/charges.js";
import { formatNaira } from "../ledger/kobo.js";
import type { SettlementRecord } from "../ledger/ledger-records.js";
import { largestPayoutWithin, payoutFee } from "../ledger/payout-fees.js";
import { readChargeSchedule } from "../storage/charge-repository.js";
import type { Storage } from "../storage/database.js";
import { isUniqueViolationOf } from "../storage/errors.js";
import type { Executor } from "../storage/executor.js";
import { ledgerBalances } from "../storage/ledger-repository.js";
import { payoutTermsOf } from "../storage/payout-repository.js";
import {
  findSettlement,
  lastCoveredOrdinal,
  recordedAtOrdinal,
  scheduledSettlements,
  settledForPeriod,
  settlementPage,
  settlementTermsOf,
} from "../storage/settlement-repository.js";
import { lastTransaction, transactionPage } from "../storage/transaction-repository.js";
import { fingerprintOf } from "./payout-model.js";
import type { PayoutService } from "./payout-service.js";
import { feeTiersOf } from "./payout-settings.js";
import { settlementTermsView } from "./settlement-terms.js";
import type { PayoutQuery } from "./validation.js";

// Settlement (issue 26, item 6): the business's available balance, less its reserve and the
// payout's own fee, paid to its settlement account as one payout, with the transactions recorded
// since its last settlement that did not fail. By hand (`vas settlement run`, the dashboard) or
// on its schedule: daily at a time in Africa/Lagos, or instant (as credits arrive), a job every
// SETTLEMENT_CHECK_INTERVAL_MS. Never twice: the payout's hold takes the business's ledger locks
// and cannot exceed what is available, and a day's settlement is unique per business and day.

/** A settlement's id: `stl_` and 32 hex digits; also its payout's reference. */
export const SETTLEMENT_ID = /^stl_[0-9a-f]{32}$/;

/** A settlement with what its payout says (storage's settlement reads select their columns under these names). */
interface SettlementWithPayout {
  id: string;
  payoutId: string;
  trigger: SettlementSchedule;
  /** The business's transactions with ordinals in (coveredAfter, coveredThrough]. */
  coveredAfter: number;
  coveredThrough: number;
  transactionCount: number;
  firstRecordedAt: string | null;
  lastRecordedAt: string | null;
  createdAt: string;
  amount: number;
  fee: number;
  vat: number;
  stampDuty: number;
  currency: string;
  status: PayoutStatus;
  failureReason: string | null;
  /** Its payout's NIP session id. */
  sessionId: string | null;
  bankCode: string;
  bankName: string;
  accountNumber: string;
  accountName: string;
  /** Its payout's last change. */
  updatedAt: string;
}

export const settlementView = (settlement: SettlementWithPayout): Settlement => ({
  id: settlement.id,
  amount: Number(settlement.amount),
  fee: Number(settlement.fee),
  charges: chargeLines({ vat: Number(settlement.vat), stampDuty: Number(settlement.stampDuty) }),
  currency: settlement.currency,
  payoutId: settlement.payoutId,
  status: settlement.status,
  failureReason: settlement.failureReason,
  sessionId: settlement.sessionId,
  trigger: settlement.trigger,
  bankCode: settlement.bankCode,
  bankName: settlement.bankName,
  accountNumber: settlement.accountNumber,
  accountName: settlement.accountName,
  transactionCount: Number(settlement.transactionCount),
  from: settlement.firstRecordedAt,
  to: settlement.lastRecordedAt,
  createdAt: settlement.createdAt,
  updatedAt: settlement.updatedAt,
});

/** The unique key of a business's daily settlements (PostgreSQL names it; SQLite the columns). */
const PERIOD_KEY = {
  index: "settlements_business_period_key",
  columns: "settlements.business_id, settlements.period",
};

/** A settlement that would be made now: what it pays, its fee, from what is available, keeping the reserve. */
export interface SettlementQuote {
  amount: number;
  fee: number;
  /** VAT on the fee and the stamp duty, as the payout would be charged them now. */
  charges: ChargeLine[];
  available: number;
  reserve: number;
}

export interface SettlementServiceOptions {
  storage: Storage;
  payouts: PayoutService;
  /** How long after a change of account no settlement goes to it. */
  coolOffMs: number;
  now?: Clock;
}

/** What a scheduled pass did: the settlements it made, and the businesses it passed over and why. */
export interface SettlementPass {
  settled: Settlement[];
  skipped: Array<{ businessId: string; reason: string }>;
}

export class SettlementService {
  private readonly now: Clock;

  constructor(private readonly options: SettlementServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Settles the business now: 422 SETTLEMENT_ACCOUNT_MISSING without an account,
   * SETTLEMENT_ACCOUNT_COOLING_OFF within the cool-off after a change, NOTHING_TO_SETTLE when the
   * available balance less the reserve does not cover a payout and its fee.
   */
  async settle(
    business: ForBusiness,
    trigger: SettlementSchedule = "manual",
    period?: string,
  ): Promise<Settlement> {
    const businessId = business.businessId;
    const { account, quote } = await this.plan(business);
    const { amount } = quote;
    const id = `stl_${randomUUID().replaceAll("-", "")}`;
    try {
      await this.options.payouts.hold(business, {
        channel: "settlement",
        amount,
        destination: account,
        narration: `Settlement ${lagosDate(this.now())}`,
        reference: id,
        fingerprint: fingerprintOf(["settlement", id]),
        settlement: {
          id,
          cover: (trx, payout) =>
            this.cover(trx, id, payout.id, payout.created_at, trigger, period, businessId),
        },
      });
    } catch (error) {
      if (period !== undefined && isUniqueViolationOf(error, PERIOD_KEY)) {
        throw nothingToSettle(`the business was settled for ${period} already`);
      }
      throw error;
    }
    return this.get(business, id);
  }

  /** What a settlement now would pay and cost (nothing is held): refused as `settle` would be. */
  async quote(business: ForBusiness): Promise<SettlementQuote> {
    return (await this.plan(business)).quote;
  }

  /** The account and the amount of a settlement now, or the refusal that stops it. */
  private async plan(business: ForBusiness) {
    const { storage } = this.options;
    const businessId = business.businessId;
    const terms = settlementTermsView(
      await settlementTermsOf(storage.db, businessId),
      this.options.coolOffMs,
    );
    if (!terms.account) throw settlementAccountMissing();
    if (this.now() < Date.parse(terms.account.usableFrom))
      throw settlementAccountCoolingOff(terms.account.usableFrom);
    const payoutTerms = await payoutTermsOf(storage.db, businessId);
    if (!payoutTerms) throw validationFailed(`no business has id ${businessId}`);
    const tiers = feeTiersOf(payoutTerms.payout_fee_tiers);
    const { available } = await ledgerBalances(storage.db, businessId);
    const schedule = await readChargeSchedule(storage.db);
    const amount = largestPayoutWithin(tiers, available - terms.reserve, schedule);
    if (amount < 1) {
      throw nothingToSettle(
        `the available balance, ${formatNaira(available)}, does not cover a settlement's fee and charges above the reserve of ${formatNaira(terms.reserve)}`,
      );
    }
    const fee = payoutFee(tiers, amount);
    const charges = chargeLines(payoutCharges(amount, fee, schedule));
    const quote = { amount, fee, charges, available, reserve: terms.reserve };
    return { account: terms.account, quote };
  }

  /** The settlement's own row, for its payout's posting: what it covers, read under the ledger locks. */
  private async cover(
    trx: Executor,
    id: string,
    payoutId: string,
    createdAt: string,
    trigger: SettlementSchedule,
    period: string | undefined,
    businessId: string,
  ): Promise<SettlementRecord> {
    const after = await lastCoveredOrdinal(trx, businessId);
    const through = Math.max(after, Number((await lastTransaction(trx, businessId))?.ordinal ?? 0));
    const covers = through > after;
    return {
      id,
      business_id: businessId,
      payout_id: payoutId,
      trigger,
      period: period ?? null,
      covered_after: after,
      covered_through: through,
      transaction_count: through - after,
      first_recorded_at: covers ? ((await recordedAtOrdinal(trx, businessId, after + 1)) ?? null) : null,
      last_recorded_at: covers ? ((await recordedAtOrdinal(trx, businessId, through)) ?? null) : null,
      created_at: createdAt,
    };
  }

  /**
   * One pass of the schedule: every instant business with something to settle, and every daily
   * one whose time has come today (Africa/Lagos) and that has no settlement for today. A business
   * with nothing to settle, or an account in its cool-off, is passed over (and looked at again).
   */
  async runScheduled(): Promise<SettlementPass> {
    const pass: SettlementPass = { settled: [], skipped: [] };
    const now = this.now();
    for (const due of await scheduledSettlements(this.options.storage.db)) {
      if (due.schedule === "daily" && (due.dailyAt === null || lagosTimeOfDay(now) < due.dailyAt)) continue;
      const period = due.schedule === "daily" ? lagosDate(now) : undefined;
      if (period !== undefined && (await settledForPeriod(this.options.storage.db, due.businessId, period)))
        continue;
      try {
        const business = { businessId: due.businessId, businessName: "" };
        pass.settled.push(await this.settle(business, due.schedule, period));
      } catch (error) {
        if (!isAppError(error) || error.statusCode >= 500) throw error;
        // Refused: nothing to settle, settled today already, the cool-off, or a payout that took
        // the balance first. The next pass looks again.
        if (error.code !== ErrorCode.NOTHING_TO_SETTLE || due.schedule === "daily") {
          pass.skipped.push({ businessId: due.businessId, reason: error.message });
        }
      }
    }
    return pass;
  }

  /** GET /settlements: newest first, by status and creation time. */
  async list(
    business: ForBusiness,
    query: PayoutQuery,
  ): Promise<{ items: Settlement[]; pagination: Pagination }> {
    const { page, limit, status, from, to, sessionId } = query;
    const filter = {
      ...(status ? { status } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
      ...(sessionId ? { sessionId } : {}),
    };
    const { db } = this.options.storage;
    const { rows, total } = await settlementPage(db, business.businessId, filter, listOffset(query), limit);
    return {
      items: rows.map(settlementView),
      pagination: { page, limit, total, pages: Math.ceil(total / limit) },
    };
  }

  /** One of the business's settlements; anything else is 404. */
  async get(business: ForBusiness, id: string): Promise<Settlement> {
    return settlementView(await this.settlement(business, id));
  }

  /** GET /settlements/{id}/transactions: the transactions it covered, newest first. */
  async transactions(business: ForBusiness, id: string, query: ListQuery): Promise<TransactionPage> {
    const settlement = await this.settlement(business, id);
    const { page, limit } = query;
    const low = Number(settlement.coveredAfter) + 1;
    const high = Number(settlement.coveredThrough) - (page - 1) * limit;
    const total = Number(settlement.transactionCount);
    const pagination = { page, limit, total, pages: Math.ceil(total / limit) };
    if (high < low) return { items: [], pagination };
    const db = this.options.storage.db;
    const rows = await transactionPage(
      db,
      { kind: "business", businessId: business.businessId },
      Math.max(low, high - limit + 1),
      high,
    );
    return { items: await viewsOf(db, rows), pagination };
  }

  private async settlement(business: ForBusiness, id: string): Promise<SettlementWithPayout> {
    const found = SETTLEMENT_ID.test(id)
      ? await findSettlement(this.options.storage.db, business.businessId, id)
      : undefined;
    if (!found) throw settlementNotFound();
    return found;
  }
}
