import type {
  AccountDetail,
  AccountSummary,
  AllowedPayer,
  AmountPolicy,
  Balance,
  Event,
  EventType,
  OnMismatch,
  Pagination,
  Payout,
  PermanentAccount,
  RefundInput,
  SandboxPayoutAccount,
  SandboxTransferInput,
  TemporaryAccount,
  Transaction,
} from "../core/api-types.js";
import { errorFromResponse, VasApiError } from "./errors.js";
import { type MoneyOutClient, moneyOutClient } from "./money-out.js";
import { everyItem, searchOf, type TransactionPage } from "./pages.js";
import { type ClientOptions, createTransport, type RawResponse, type RequestOptions } from "./transport.js";

export { canonicalRequest, type SignatureVersion, sign, signRequestV2 } from "../auth/signature.js";
// The answers' shapes are the server's own (core/api-types.ts, generated from the schemas the
// routes answer with), imported as types only: that file imports nothing, so an integrator who unpacks the package without the
// service's dependencies still type-checks (test/client-package.test.ts does exactly that).
export type * from "../core/api-types.js";
export type { MoneyOutClient, PayoutPage, PayoutQuery, SettlementPage } from "./money-out.js";
export type { TransactionPage } from "./pages.js";
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

export interface EventPage {
  data: Event[];
  pagination: Pagination;
}

/**
 * The customer of a generate call: `bvn` or `nin` (BVN wins when both are given; the NIN is kept
 * too, making the account tier 2, when it is 11 digits).
 */
export interface CustomerInput {
  name: string;
  email: string;
  bvn?: string;
  nin?: string;
  /** Who may pay in (issue 46): accounts and names; absent or `null`, anyone. */
  allowedPayers?: AllowedPayer[] | null;
  /** What a credit the account's rules do not take becomes: `decline` (the default) or `hold`. */
  onMismatch?: OnMismatch;
}

/** The identity an account lacks (POST /account/:accountNumber/identity): its BVN or its NIN. */
export type IdentityInput = { bvn: string } | { nin: string };

/** What PATCH /account/:accountNumber changes (at least one): absent stays; `allowedPayers: null` lets anyone pay. */
export interface AccountUpdateInput {
  allowedPayers?: AllowedPayer[] | null;
  onMismatch?: OnMismatch;
}

export interface AccountPage {
  data: AccountSummary[];
  pagination: Pagination;
}

/** Every transaction matching the filters; and one payment found by its session id. */
export interface Transactions {
  (query?: Omit<TransactionQuery, "page">): AsyncIterableIterator<Transaction>;
  /**
   * POST /transactions/requery: your payment with this bank session id, recorded already, or
   * found at the bank and recorded now (`recovered`: its notification never came); throws
   * VasApiError 404 TRANSACTION_NOT_FOUND when neither has it.
   */
  requery(sessionId: string, options?: RequestOptions): Promise<Requeried>;
}

/** What a requery found. */
export interface Requeried {
  transaction: Transaction;
  /** True when the bank had it and it was recorded now (201); false when it was recorded already (200). */
  recovered: boolean;
}

/** A client for the Virtual Account Service: signs every request, retries safely, throws VasApiError. */
export interface VasClient extends MoneyOutClient {
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
  /** PATCH /account/:accountNumber: who may pay in and what a credit from anyone else becomes, from the next credit on. */
  updateAccount(
    accountNumber: string,
    update: AccountUpdateInput,
    options?: RequestOptions,
  ): Promise<AccountDetail>;
  /** POST /account/:accountNumber/deactivate: the account stops taking payments. */
  deactivateAccount(accountNumber: string, options?: RequestOptions): Promise<AccountDetail>;
  /** POST /account/:accountNumber/reactivate: the account takes payments again. */
  reactivateAccount(accountNumber: string, options?: RequestOptions): Promise<AccountDetail>;
  /**
   * POST /account/:accountNumber/identity: adds the BVN or NIN the account lacks once the bank's
   * record of it is in the customer's name (else 422 IDENTITY_MISMATCH), raising its tier.
   */
  addAccountIdentity(
    accountNumber: string,
    identity: IdentityInput,
    options?: RequestOptions,
  ): Promise<AccountDetail>;
  /** GET /transactions: one page, newest first. */
  listTransactions(query?: TransactionQuery, options?: RequestOptions): Promise<TransactionPage>;
  /**
   * Every transaction matching the filters, newest first, fetched page by page; and
   * `transactions.requery(sessionId)`, a payment found by its session id.
   */
  transactions: Transactions;
  /** GET /transactions/:id. */
  getTransaction(id: string, options?: RequestOptions): Promise<Transaction>;
  /**
   * POST /transactions/:id/refund: the payment (or `amount` of it) back to its payer, a payout with
   * `refundOf`; held at once and answered `pending`.
   */
  refund(transactionId: string, input?: RefundInput, options?: RequestOptions): Promise<Payout>;
  /**
   * POST /transactions/:id/accept: a held credit (issue 46) moved to the available balance, its
   * fee and charges taken now; answered `successful`.
   */
  acceptHeld(transactionId: string, options?: RequestOptions): Promise<Transaction>;
  /**
   * POST /transactions/:id/return: a held credit (issue 46) sent back whole to its payer, a refund
   * (`refundOf` the transaction) taken from the held balance with no fee; answered `pending`. Pass
   * your own `idempotencyKey` to retry it safely from another process.
   */
  returnHeld(transactionId: string, options?: RequestOptions): Promise<Payout>;
  /** GET /balance: now, or as it stood `at` an instant. */
  getBalance(query?: { at?: Date | string }, options?: RequestOptions): Promise<Balance>;
  /** GET /events: one page, newest first, optionally of one type. */
  listEvents(
    query?: { page?: number; limit?: number; type?: EventType },
    options?: RequestOptions,
  ): Promise<EventPage>;
  /** GET /events/:id, with its deliveries. */
  getEvent(id: string, options?: RequestOptions): Promise<Event>;
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
  const listTransactions = async (query: TransactionQuery = {}, requestOptions?: RequestOptions) => {
    const path = `/transactions${searchOf(query)}`;
    const { data, pagination } = await call<TransactionPage>("GET", path, undefined, requestOptions);
    return { data, pagination };
  };

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
    async updateAccount(accountNumber, update, requestOptions) {
      return (
        await call<{ data: AccountDetail }>("PATCH", accountPath(accountNumber), update, requestOptions)
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
    async addAccountIdentity(accountNumber, identity, requestOptions) {
      const path = `${accountPath(accountNumber)}/identity`;
      return (await call<{ data: AccountDetail }>("POST", path, identity, requestOptions)).data;
    },
    listTransactions,
    transactions: Object.assign(
      // Pages are fixed by the filters' bounds at the first call's time; a transfer recorded
      // meanwhile shifts later pages by one, so ids already seen are skipped.
      (query: Omit<TransactionQuery, "page"> = {}) =>
        everyItem((page, limit) => listTransactions({ ...query, page, limit }), query.limit),
      {
        async requery(sessionId: string, requestOptions?: RequestOptions): Promise<Requeried> {
          const response = await request("POST", "/transactions/requery", { sessionId }, requestOptions);
          if (response.status !== 200 && response.status !== 201) {
            throw errorFromResponse(
              response.status,
              response.body,
              response.headers.get("x-request-id") ?? undefined,
            );
          }
          const { data } = response.body as { data: Transaction };
          return { transaction: data, recovered: response.status === 201 };
        },
      },
    ),
    async getTransaction(id, requestOptions) {
      const path = `/transactions/${encodeURIComponent(id)}`;
      return (await call<{ data: Transaction }>("GET", path, undefined, requestOptions)).data;
    },
    async refund(transactionId, input = {}, requestOptions) {
      const path = `/transactions/${encodeURIComponent(transactionId)}/refund`;
      return (await call<{ data: Payout }>("POST", path, input, requestOptions)).data;
    },
    async acceptHeld(transactionId, requestOptions) {
      const path = `/transactions/${encodeURIComponent(transactionId)}/accept`;
      return (await call<{ data: Transaction }>("POST", path, {}, requestOptions)).data;
    },
    async returnHeld(transactionId, requestOptions) {
      const path = `/transactions/${encodeURIComponent(transactionId)}/return`;
      return (await call<{ data: Payout }>("POST", path, {}, requestOptions)).data;
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
    ...moneyOutClient(call),
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

const accountPath = (accountNumber: string) => `/account/${encodeURIComponent(accountNumber)}`;
