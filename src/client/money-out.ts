import type {
  Bank,
  Pagination,
  Payout,
  PayoutInput,
  PayoutStatus,
  ResolvedBankAccount,
  Settlement,
} from "../core/api-types.js";
import { everyItem, searchOf, type TransactionPage } from "./pages.js";
import type { createTransport, RequestOptions } from "./transport.js";

// The SDK's money out (issue 26): the banks, payouts and settlements.

/** Filters of GET /payouts: `from` and `to` bound `createdAt` (Date or ISO 8601 with a zone). */
export interface PayoutQuery {
  page?: number;
  limit?: number;
  status?: PayoutStatus;
  from?: Date | string;
  to?: Date | string;
  /** The NIP session id (30 digits) of its transfer. */
  sessionId?: string;
}

export interface PayoutPage {
  data: Payout[];
  pagination: Pagination;
}

export interface SettlementPage {
  data: Settlement[];
  pagination: Pagination;
}

/** The client's money out: what VasClient has for banks, payouts and settlements. */
export interface MoneyOutClient {
  /** The banks money can be sent to. */
  banks: {
    /** GET /banks: every bank, by CBN code. */
    list(options?: RequestOptions): Promise<Bank[]>;
    /** GET /banks/resolve: the name the bank gives an account (throws ACCOUNT_NOT_RESOLVED when none). */
    resolve(
      query: { bankCode: string; accountNumber: string },
      options?: RequestOptions,
    ): Promise<ResolvedBankAccount>;
  };
  /** Money sent from the available balance to accounts at banks. */
  payouts: {
    /**
     * POST /payouts: held at once and answered `pending`; the bank's outcome follows. Pass your
     * own `idempotencyKey` (and `reference`) to retry it safely from another process.
     */
    create(input: PayoutInput, options?: RequestOptions): Promise<Payout>;
    /** GET /payouts: one page, newest first. */
    list(query?: PayoutQuery, options?: RequestOptions): Promise<PayoutPage>;
    /** Every payout matching the filters, newest first, fetched page by page. */
    all(query?: Omit<PayoutQuery, "page">): AsyncIterableIterator<Payout>;
    /** GET /payouts/:id: where it stands now. */
    get(id: string, options?: RequestOptions): Promise<Payout>;
  };
  /** The available balance paid to the business's own account, by hand or on its schedule. */
  settlements: {
    /** GET /settlements: one page, newest first (`status` is the settlement's payout's). */
    list(query?: PayoutQuery, options?: RequestOptions): Promise<SettlementPage>;
    /** Every settlement, newest first, fetched page by page. */
    all(query?: Omit<PayoutQuery, "page">): AsyncIterableIterator<Settlement>;
    /** GET /settlements/:id: its payout's status now, and what it covered. */
    get(id: string, options?: RequestOptions): Promise<Settlement>;
    /** GET /settlements/:id/transactions: the transactions it covered, newest first. */
    transactions(
      id: string,
      query?: { page?: number; limit?: number },
      options?: RequestOptions,
    ): Promise<TransactionPage>;
  };
}

/** The money-out part of a client, over its transport's `call`. */
export function moneyOutClient(call: ReturnType<typeof createTransport>["call"]): MoneyOutClient {
  return {
    banks: {
      async list(requestOptions) {
        return (await call<{ data: Bank[] }>("GET", "/banks", undefined, requestOptions)).data;
      },
      async resolve({ bankCode, accountNumber }, requestOptions) {
        const search = new URLSearchParams({ bankCode, accountNumber });
        const path = `/banks/resolve?${search}`;
        return (await call<{ data: ResolvedBankAccount }>("GET", path, undefined, requestOptions)).data;
      },
    },
    payouts: {
      async create(input, requestOptions) {
        return (await call<{ data: Payout }>("POST", "/payouts", input, requestOptions)).data;
      },
      async list(query = {}, requestOptions) {
        const { data, pagination } = await call<PayoutPage>(
          "GET",
          `/payouts${searchOf(query)}`,
          undefined,
          requestOptions,
        );
        return { data, pagination };
      },
      all(query = {}) {
        return everyItem((page, limit) => this.list({ ...query, page, limit }), query.limit);
      },
      async get(id, requestOptions) {
        const path = `/payouts/${encodeURIComponent(id)}`;
        return (await call<{ data: Payout }>("GET", path, undefined, requestOptions)).data;
      },
    },
    settlements: {
      async list(query = {}, requestOptions) {
        const path = `/settlements${searchOf(query)}`;
        const { data, pagination } = await call<SettlementPage>("GET", path, undefined, requestOptions);
        return { data, pagination };
      },
      all(query = {}) {
        return everyItem((page, limit) => this.list({ ...query, page, limit }), query.limit);
      },
      async get(id, requestOptions) {
        const path = `/settlements/${encodeURIComponent(id)}`;
        return (await call<{ data: Settlement }>("GET", path, undefined, requestOptions)).data;
      },
      async transactions(id, query = {}, requestOptions) {
        const path = `/settlements/${encodeURIComponent(id)}/transactions${searchOf(query)}`;
        const { data, pagination } = await call<TransactionPage>("GET", path, undefined, requestOptions);
        return { data, pagination };
      },
    },
  };
}
