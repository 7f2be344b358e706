import type { Clock } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import type { Pagination, Payout } from "../core/api-types.js";
import { payoutNotFound } from "../core/money-out-errors.js";
import type { PayoutFilter } from "../core/payouts-counted.js";
import { listOffset } from "../core/validation.js";
import type { PayoutRecord } from "../ledger/ledger-records.js";
import type { Executor } from "../storage/executor.js";
import { findPayout, findPayoutById, payoutPage, payoutsRefunding } from "../storage/payout-repository.js";
import { payoutView } from "./payout-model.js";
import { PAYOUT_ID, type PayoutQuery } from "./validation.js";

/**
 * A payout as the operator console lists it: whose it is, beside the payout, and what the tracker
 * saw of it: the NIP codes its bank answered with, and since when it needs attention (null: it does not).
 */
export type OperatorPayout = Payout & {
  businessId: string;
  nipCodes: string | null;
  attentionAt: string | null;
};

const operatorView = (row: PayoutRecord): OperatorPayout => ({
  ...payoutView(row),
  businessId: row.business_id,
  nipCodes: row.nip_codes,
  attentionAt: row.status === "pending" ? row.attention_at : null,
});

/** A page of payouts, newest first, and where it stands among them. */
export interface PayoutList<T> {
  items: T[];
  pagination: Pagination;
}

export interface PayoutListingOptions {
  db: Executor;
  /** A payout pending longer than this is stuck (PAYOUT_STUCK_MINUTES). */
  stuckAfterMs: number;
  /** Status queries left unresolved before a payout needs attention (PAYOUT_ATTENTION_QUERIES): the console says it. */
  attentionAfterQueries: number;
  now?: Clock;
}

/** Reading payouts: a business's own (the API and the dashboard), and every business's (the console). */
export class PayoutListing {
  private readonly db: Executor;
  private readonly now: Clock;
  /** A payout pending longer than this is stuck (PAYOUT_STUCK_MINUTES). */
  readonly stuckAfterMs: number;
  readonly attentionAfterQueries: number;

  constructor(options: PayoutListingOptions) {
    this.attentionAfterQueries = options.attentionAfterQueries;
    this.db = options.db;
    this.now = options.now ?? Date.now;
    this.stuckAfterMs = options.stuckAfterMs;
  }

  /** GET /payouts: newest first, filtered by status and creation time. */
  async list(business: ForBusiness, query: PayoutQuery): Promise<PayoutList<Payout>> {
    const { rows, pagination } = await this.page(business.businessId, query);
    return { items: rows.map(payoutView), pagination };
  }

  /**
   * Every payout of the business the query selects (every page of it), newest first, in batches of
   * `size`: the dashboard's export. Payouts made while it reads do not shift its pages: the range
   * ends when it starts (the query's own `to` when earlier).
   */
  async *batches(business: ForBusiness, query: PayoutQuery, size = 500): AsyncGenerator<Payout[]> {
    const now = new Date(this.now()).toISOString();
    const pinned: PayoutQuery = {
      ...query,
      limit: size,
      to: query.to !== undefined && query.to < now ? query.to : now,
    };
    for (let page = 1; ; page++) {
      const { rows, pagination } = await this.page(business.businessId, { ...pinned, page });
      yield rows.map(payoutView);
      if (page >= pagination.pages) return;
    }
  }

  /** One of the business's payouts; anything else (another business's included) is 404. */
  async get(business: ForBusiness, id: string): Promise<Payout> {
    if (!PAYOUT_ID.test(id)) throw payoutNotFound();
    const row = await findPayout(this.db, business.businessId, id);
    if (!row) throw payoutNotFound();
    return payoutView(row);
  }

  /** Any business's payout, for operators (404 when there is none). */
  async find(id: string): Promise<OperatorPayout> {
    const row = PAYOUT_ID.test(id) ? await findPayoutById(this.db, id) : undefined;
    if (!row) throw payoutNotFound();
    return operatorView(row);
  }

  /** The refunds of one of the business's transactions, newest first (its page in the dashboard). */
  async refundsOf(business: ForBusiness, transactionId: string): Promise<Payout[]> {
    return (await payoutsRefunding(this.db, business.businessId, transactionId)).map(payoutView);
  }

  /**
   * Every business's payouts (or one business's), for operators: the same filters, newest first;
   * `stuck`, only those pending longer than PAYOUT_STUCK_MINUTES (the tracker still asks about them);
   * `attention`, only pending ones the bank's status queries left unresolved PAYOUT_ATTENTION_QUERIES times.
   */
  async acrossBusinesses(
    query: PayoutQuery,
    {
      businessId,
      stuck = false,
      attention = false,
    }: { businessId?: string; stuck?: boolean; attention?: boolean } = {},
  ): Promise<PayoutList<OperatorPayout>> {
    const { rows, pagination } = await this.page(
      businessId,
      stuck ? this.stuckOnly(query) : query,
      attention,
    );
    return { items: rows.map(operatorView), pagination };
  }

  /** How many pending payouts of every business need attention now. */
  async attentionCount(): Promise<number> {
    const { pagination } = await this.page(undefined, { page: 1, limit: 1 }, true);
    return pagination.total;
  }

  /** Whether the payout is stuck: pending longer than PAYOUT_STUCK_MINUTES. */
  isStuck(payout: Payout): boolean {
    return payout.status === "pending" && Date.parse(payout.createdAt) < this.now() - this.stuckAfterMs;
  }

  /** How many payouts of every business are stuck now. */
  async stuckCount(): Promise<number> {
    const { pagination } = await this.page(undefined, this.stuckOnly({ page: 1, limit: 1 }));
    return pagination.total;
  }

  private stuckOnly(query: PayoutQuery): PayoutQuery {
    const before = new Date(this.now() - this.stuckAfterMs).toISOString();
    return {
      ...query,
      status: "pending",
      to: query.to !== undefined && query.to < before ? query.to : before,
    };
  }

  private async page(businessId: string | undefined, query: PayoutQuery, attention = false) {
    const { page, limit, status, from, to, sessionId } = query;
    const filter: PayoutFilter = {
      ...(status ? { status } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
      ...(sessionId ? { sessionId } : {}),
      ...(attention ? { attention } : {}),
    };
    const { rows, total } = await payoutPage(this.db, businessId, filter, listOffset(query), limit);
    return { rows, pagination: { page, limit, total, pages: Math.ceil(total / limit) } };
  }
}
