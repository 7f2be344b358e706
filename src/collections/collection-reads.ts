import type { Clock } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import type { Transaction } from "../core/api-types.js";
import { offsetAt, zonedMinuteToUtc, zonedParts } from "../core/zoned-time.js";
import { findNumberOwner } from "../storage/account-repository.js";
import { collectionsByHour } from "../storage/collection-days.js";
import { listConflicts } from "../storage/conflict-repository.js";
import type { Storage } from "../storage/database.js";
import type { TransactionPage } from "./transaction-listing.js";
import { searchTransactions, type TransactionSearch, transactionsToExport } from "./transaction-search.js";

/** What a business collected on one day of its time zone. */
export interface DayOfCollections {
  /** `YYYY-MM-DD`, in the business's time zone. */
  date: string;
  count: number;
  /** Kobo, before fees. */
  amount: number;
}

/**
 * A bank notification refused because its session id was first recorded with another account
 * number, amount or currency: what it said, what stands, and how often it came.
 */
export interface TransferConflict {
  sessionId: string;
  businessId: string;
  refused: { accountNumber: string; amount: number; currency: string };
  recorded: { transactionId: string; accountNumber: string; amount: number; currency: string };
  attempts: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

const DAY_MS = 86_400_000;

/**
 * The reads of payments beside the ingestion path: the dashboard's of a business's (issue 28,
 * items 8 and 10: the search, the export, what it collected each day), each scoped to the
 * business; and the operator's across businesses (the CLI's): conflicts, and whose a number is.
 */
export class CollectionReads {
  private readonly now: Clock;

  constructor(private readonly options: { storage: Storage; now?: Clock }) {
    this.now = options.now ?? Date.now;
  }

  /** GET /transactions' query with the payer's name and the amount (see transaction-search.ts). */
  search(business: ForBusiness, search: TransactionSearch): Promise<TransactionPage> {
    return searchTransactions(this.options.storage.db, business.businessId, search);
  }

  /** Everything a search selects, in batches, for an export (see transaction-search.ts). */
  toExport(business: ForBusiness, search: TransactionSearch): Promise<AsyncIterable<Transaction[]>> {
    return transactionsToExport(this.options.storage.db, business.businessId, search);
  }

  /** The business that holds (or held) an account number: the CLI's sandbox transfer acts for it. */
  numberOwner(accountNumber: string): Promise<string | undefined> {
    return findNumberOwner(this.options.storage.db, accountNumber);
  }

  /** Conflicts, most recently seen first, of one business or of all (`vas ledger conflicts`). */
  async conflicts(options: { businessId?: string; limit: number }): Promise<TransferConflict[]> {
    const rows = await listConflicts(this.options.storage.db, options);
    return rows.map((row) => ({
      sessionId: row.session_id,
      businessId: row.business_id,
      refused: { accountNumber: row.account_number, amount: Number(row.amount), currency: row.currency },
      recorded: {
        transactionId: row.transaction_id,
        accountNumber: row.recorded_account_number,
        amount: Number(row.recorded_amount),
        currency: row.recorded_currency,
      },
      attempts: row.attempts,
      firstSeenAt: row.first_seen_at,
      lastSeenAt: row.last_seen_at,
    }));
  }

  /**
   * What the business collected on each of the last `days` days of `timeZone` (today the last,
   * so far), by value time: every day listed, a day without payments as zero.
   */
  async perDay(business: ForBusiness, timeZone: string, days = 30): Promise<DayOfCollections[]> {
    const now = this.now();
    const today = zonedParts(now, timeZone).date;
    const dates: string[] = [];
    for (let back = days - 1; back >= 0; back--) {
      // Noon of the day `back` days ago, read in the zone: a date whatever the clock changes.
      const noon = Date.parse(`${today}T12:00:00.000Z`) - back * DAY_MS;
      dates.push(new Date(noon).toISOString().slice(0, 10));
    }
    const from = zonedMinuteToUtc(`${dates[0]}T00:00`, timeZone) as string;
    // Days start on the hour in most zones, 30 or 45 minutes past it in a few (India's, Nepal's).
    const split = ((Math.round(offsetAt(now, timeZone) / 60_000) % 60) + 60) % 60;
    const hours = await collectionsByHour(
      this.options.storage.db,
      business.businessId,
      from,
      new Date(now + 1).toISOString(),
      split,
    );
    const byDate = new Map(dates.map((date) => [date, { date, count: 0, amount: 0 }]));
    for (const hour of hours) {
      // The part of the hour lies within one day of the zone: its first minute names it.
      const first = Date.parse(`${hour.hour}:00:00.000Z`) + (hour.late ? split * 60_000 : 0);
      const day = byDate.get(zonedParts(first, timeZone).date);
      if (!day) continue;
      day.count += hour.count;
      day.amount += hour.amount;
    }
    return [...byDate.values()];
  }
}
