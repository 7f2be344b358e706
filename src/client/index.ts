import type {
  AccountDetail,
  AccountSummary,
  AmountPolicy,
  Balance,
  Bank,
  Event,
  EventType,
  Pagination,
  Payout,
  PayoutInput,
  PayoutStatus,
  PermanentAccount,
  RefundInput,
  ResolvedBankAccount,
  SandboxPayoutAccount,
  SandboxTransferInput,
  Settlement,
  TemporaryAccount,
  Transaction,
} from "../core/api-types.js";
import { VasApiError } from "./errors.js";
import { type ClientOptions, createTransport, type RawResponse, type RequestOptions } from "./transport.js";

export { canonicalRequest, type SignatureVersion, sign, signRequestV2 } from "../auth/signature.js";
// The answers' shapes are the server's own declaration (core/api-types.ts), imported as types
// only: that file imports nothing, so an integrator who unpacks the package without the
// service's dependencies still type-checks (test/client-package.test.ts does exactly that).
export type * from "../core/api-types.js";
export {
  API_PREFIX,
  type ClientOptions,
  type RawResponse,
  type RequestOptions,
  serviceRoot,
} from "./transport.js";
export { VasApiError };

/** Filters of GET /transactions: `from` and `to` are instants (Date or ISO 8601 with a zone). */
export interface TransactionQuery {
  page?: number;
  limit?: number;
  accountNumber?: string;
  /** The bank's session id of one payment (a requery). */
  sessionId?: string;
  from?: Date | string;
  to?: Date | string;
  /** Which time from/to bound: paidAt (the default) or createdAt. */
  timeField?: "paidAt" | "createdAt";
}

export interface TransactionPage {
  data: Transaction[];
  pagination: Pagination;
}

export interface EventPage {
  data: Event[];
  pagination: Pagination;
}

/** The customer of a generate call: `bvn` or `nin` (BVN wins when both are given). */
export interface CustomerInput {
  name: string;
  email: string;
  bvn?: string;
  nin?: string;
}

/** Filters of GET /payouts: `from` and `to` bound `createdAt` (Date or ISO 8601 with a zone). */
export interface PayoutQuery {
  page?: number;
  limit?: number;
  status?: PayoutStatus;
  from?: Date | string;
  to?: Date | string;
}

export interface PayoutPage {
  data: Payout[];
  pagination: Pagination;
}

export interface SettlementPage {
  data: Settlement[];
  pagination: Pagination;
}

export interface AccountPage {
  data: AccountSummary[];
  pagination: Pagination;
}

/** A client for the Virtual Account Service: signs every request, retries safely, throws VasApiError. */
export interface VasClient {
  /** POST /account/generate: creates the customer's permanent account, or re-issues it. */
  generateAccount(customer: CustomerInput, options?: RequestOptions): Promise<PermanentAccount>;
  /** POST /account/generate/temporary: a new account expiring after `duration` minutes (default 40). */
  generateTemporaryAccount(
    customer: CustomerInput & { duration?: number; expectedAmount?: number; amountPolicy?: AmountPolicy },
    options?: RequestOptions,
  ): Promise<TemporaryAccount>;
  /** GET /account/list: one page, newest first. */
  listAccounts(query?: { page?: number; limit?: number }, options?: RequestOptions): Promise<AccountPage>;
  /** Every account, newest first, fetched page by page. */
  accounts(query?: { limit?: number }): AsyncIterableIterator<AccountSummary>;
  /** GET /account/:accountNumber: the account, its status and what it has received. */
  getAccount(accountNumber: string, options?: RequestOptions): Promise<AccountDetail>;
  /** POST /account/:accountNumber/deactivate: the account stops taking payments. */
  deactivateAccount(accountNumber: string, options?: RequestOptions): Promise<AccountDetail>;
  /** POST /account/:accountNumber/reactivate: the account takes payments again. */
  reactivateAccount(accountNumber: string, options?: RequestOptions): Promise<AccountDetail>;
  /** GET /transactions: one page, newest first. */
  listTransactions(query?: TransactionQuery, options?: RequestOptions): Promise<TransactionPage>;
  /** Every transaction matching the filters, newest first, fetched page by page. */
  transactions(query?: Omit<TransactionQuery, "page">): AsyncIterableIterator<Transaction>;
  /** GET /transactions/:id. */
  getTransaction(id: string, options?: RequestOptions): Promise<Transaction>;
  /**
   * POST /transactions/:id/refund: the payment (or `amount` of it) back to its payer, a payout with
   * `refundOf`; held at once and answered `pending`.
   */
  refund(transactionId: string, input?: RefundInput, options?: RequestOptions): Promise<Payout>;
  /** GET /balance: now, or as it stood `at` an instant. */
  getBalance(query?: { at?: Date | string }, options?: RequestOptions): Promise<Balance>;
  /** GET /events: one page, newest first, optionally of one type. */
  listEvents(
    query?: { page?: number; limit?: number; type?: EventType },
    options?: RequestOptions,
  ): Promise<EventPage>;
  /** GET /events/:id, with its deliveries. */
  getEvent(id: string, options?: RequestOptions): Promise<Event>;
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
  /** The sandbox (servers with SANDBOX=true). */
  sandbox: {
    /** POST /sandbox/transfers: the Virtual Bank pays into one of your accounts. */
    transfer(input: SandboxTransferInput, options?: RequestOptions): Promise<Transaction>;
    /** GET /sandbox/payout-accounts: where the sandbox pays out to, and what each payout does. */
    payoutAccounts(options?: RequestOptions): Promise<SandboxPayoutAccount[]>;
  };
  /** A signed call to any path under the API prefix; does not throw on 4xx/5xx. */
  request(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<RawResponse>;
}

export function createClient(options: ClientOptions): VasClient {
  const { request, call } = createTransport(options);

  return {
    request,
    async generateAccount(customer, requestOptions) {
      return (await call<{ data: PermanentAccount }>("POST", "/account/generate", customer, requestOptions))
        .data;
    },
    async generateTemporaryAccount(customer, requestOptions) {
      return (
        await call<{ data: TemporaryAccount }>(
          "POST",
          "/account/generate/temporary",
          customer,
          requestOptions,
        )
      ).data;
    },
    async listAccounts(query = {}, requestOptions) {
      const params = new URLSearchParams();
      if (query.page !== undefined) params.set("page", String(query.page));
      if (query.limit !== undefined) params.set("limit", String(query.limit));
      const search = params.size > 0 ? `?${params}` : "";
      const { data, pagination } = await call<AccountPage>(
        "GET",
        `/account/list${search}`,
        undefined,
        requestOptions,
      );
      return { data, pagination };
    },
    async *accounts(query = {}) {
      for (let page = 1; ; page++) {
        const { data, pagination } = await this.listAccounts({ page, limit: query.limit ?? 100 });
        yield* data;
        if (page >= pagination.pages) return;
      }
    },
    async getAccount(accountNumber, requestOptions) {
      return (
        await call<{ data: AccountDetail }>("GET", accountPath(accountNumber), undefined, requestOptions)
      ).data;
    },
    async deactivateAccount(accountNumber, requestOptions) {
      const path = `${accountPath(accountNumber)}/deactivate`;
      return (await call<{ data: AccountDetail }>("POST", path, undefined, requestOptions)).data;
    },
    async reactivateAccount(accountNumber, requestOptions) {
      const path = `${accountPath(accountNumber)}/reactivate`;
      return (await call<{ data: AccountDetail }>("POST", path, undefined, requestOptions)).data;
    },
    async listTransactions(query = {}, requestOptions) {
      const { data, pagination } = await call<TransactionPage>(
        "GET",
        `/transactions${searchOf(query)}`,
        undefined,
        requestOptions,
      );
      return { data, pagination };
    },
    async *transactions(query = {}) {
      // Pages are fixed by the filters' bounds at the first call's time; a transfer recorded
      // meanwhile shifts later pages by one, so ids already seen are skipped.
      const seen = new Set<string>();
      for (let page = 1; ; page++) {
        const { data, pagination } = await this.listTransactions({
          ...query,
          page,
          limit: query.limit ?? 100,
        });
        for (const transaction of data) {
          if (seen.has(transaction.id)) continue;
          seen.add(transaction.id);
          yield transaction;
        }
        if (page >= pagination.pages) return;
      }
    },
    async getTransaction(id, requestOptions) {
      const path = `/transactions/${encodeURIComponent(id)}`;
      return (await call<{ data: Transaction }>("GET", path, undefined, requestOptions)).data;
    },
    async refund(transactionId, input = {}, requestOptions) {
      const path = `/transactions/${encodeURIComponent(transactionId)}/refund`;
      return (await call<{ data: Payout }>("POST", path, input, requestOptions)).data;
    },
    async listEvents(query = {}, requestOptions) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query))
        if (value !== undefined) params.set(name, String(value));
      const search = params.size > 0 ? `?${params}` : "";
      return call<EventPage>("GET", `/events${search}`, undefined, requestOptions);
    },
    async getEvent(id, requestOptions) {
      const path = `/events/${encodeURIComponent(id)}`;
      return (await call<{ data: Event }>("GET", path, undefined, requestOptions)).data;
    },
    async getBalance(query = {}, requestOptions) {
      const at = query.at instanceof Date ? query.at.toISOString() : query.at;
      const search = at === undefined ? "" : `?${new URLSearchParams({ at })}`;
      return (await call<{ data: Balance }>("GET", `/balance${search}`, undefined, requestOptions)).data;
    },
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
    sandbox: {
      async transfer(input, requestOptions) {
        return (await call<{ data: Transaction }>("POST", "/sandbox/transfers", input, requestOptions)).data;
      },
      async payoutAccounts(requestOptions) {
        const path = "/sandbox/payout-accounts";
        return (await call<{ data: SandboxPayoutAccount[] }>("GET", path, undefined, requestOptions)).data;
      },
    },
  };
}

/**
 * Every item of a list, newest first, page by page; an item made meanwhile shifts later pages by
 * one, so ids already seen are skipped.
 */
async function* everyItem<T extends { id: string }>(
  list: (page: number, limit: number) => Promise<{ data: T[]; pagination: Pagination }>,
  limit = 100,
): AsyncIterableIterator<T> {
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const { data, pagination } = await list(page, limit);
    for (const item of data) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      yield item;
    }
    if (page >= pagination.pages) return;
  }
}

/** A query string of the filters given (`?...`, or nothing), instants as ISO 8601. */
function searchOf(query: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(name, value instanceof Date ? value.toISOString() : String(value));
  }
  return params.size > 0 ? `?${params}` : "";
}

const accountPath = (accountNumber: string) => `/account/${encodeURIComponent(accountNumber)}`;
