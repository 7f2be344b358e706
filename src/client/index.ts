import { randomUUID } from "node:crypto";
import { EMPTY_BODY, type SignatureVersion, sign, signRequestV2 } from "../auth/signature.js";
import type {
  AccountDetail,
  AccountSummary,
  AmountPolicy,
  Balance,
  Event,
  EventType,
  Pagination,
  PermanentAccount,
  SandboxTransferInput,
  TemporaryAccount,
  Transaction,
} from "../core/api-types.js";
import { errorFromResponse, networkError, VasApiError } from "./errors.js";

export { canonicalRequest, type SignatureVersion, sign, signRequestV2 } from "../auth/signature.js";
// The answers' shapes are the server's own declaration (core/api-types.ts), imported as types
// only: that file imports nothing, so an integrator who unpacks the package without the
// service's dependencies still type-checks (test/client-package.test.ts does exactly that).
export type * from "../core/api-types.js";
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

export interface ClientOptions {
  /**
   * Where the service runs: its address (`https://vas.example.com`) or the specification's
   * `{base_url}` (`https://vas.example.com/api/v1/external`), with or without a trailing slash.
   */
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First backoff delay; doubles each retry, with jitter (default 250 ms). */
  retryDelayMs?: number;
  /** Longest wait between attempts, whatever Retry-After says (default 30 s). */
  maxRetryDelayMs?: number;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /**
   * 2 (the default) signs the method, path, query, Idempotency-Key, body and timestamp; 1 signs
   * the body and timestamp only, as the specification does (for a service that predates 2).
   */
  signatureVersion?: SignatureVersion;
}

/** The customer of a generate call: `bvn` or `nin` (BVN wins when both are given). */
export interface CustomerInput {
  name: string;
  email: string;
  bvn?: string;
  nin?: string;
}

export interface RequestOptions {
  /** Sent as Idempotency-Key; generated when absent. Reuse it to retry the same operation later. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface AccountPage {
  data: AccountSummary[];
  pagination: Pagination;
}

/** What a raw call returns: the HTTP status and the parsed body. */
export interface RawResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

export const API_PREFIX = "/api/v1/external";
const RETRYABLE_STATUS = (status: number) => status === 409 || status === 429 || status >= 500;

/**
 * The service's root for a base URL given either way (with or without `/api/v1/external`, with
 * or without a trailing slash); throws a TypeError when it is not an http(s) URL.
 */
export function serviceRoot(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, "");
  const root = trimmed.endsWith(API_PREFIX) ? trimmed.slice(0, -API_PREFIX.length) : trimmed;
  let parsed: URL | undefined;
  try {
    parsed = new URL(root);
  } catch {
    // reported below
  }
  if (parsed && (parsed.username || parsed.password)) {
    // fetch refuses such URLs; the message must not repeat the password.
    throw new TypeError("baseUrl must not contain a user name or password");
  }
  if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") {
    throw new TypeError(
      `baseUrl must be an http:// or https:// URL such as https://vas.example.com, not "${baseUrl}"`,
    );
  }
  return root;
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
  };
  /** A signed call to any path under the API prefix; does not throw on 4xx/5xx. */
  request(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<RawResponse>;
}

export function createClient(options: ClientOptions): VasClient {
  const root = serviceRoot(options.baseUrl);
  const doFetch = options.fetch ?? fetch;
  const maxRetries = options.maxRetries ?? 3;
  const firstDelay = options.retryDelayMs ?? 250;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const signatureVersion = options.signatureVersion ?? 2;

  async function attempt(
    method: string,
    url: URL,
    payload: string | undefined,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ) {
    const timestamp = String(Date.now());
    const signing: Record<string, string> =
      signatureVersion === 2
        ? {
            "x-signature-version": "2",
            "x-signature": signRequestV2(options.secretKey, {
              method,
              url: `${url.pathname}${url.search}`,
              timestamp,
              idempotencyKey: headers["idempotency-key"],
              body: payload,
            }),
          }
        : { "x-signature": sign(options.secretKey, payload ?? EMPTY_BODY, timestamp) };
    const response = await doFetch(url, {
      method,
      headers: {
        ...headers,
        "x-api-key": options.apiKey,
        "x-timestamp": timestamp,
        ...signing,
        ...(payload === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(payload === undefined ? {} : { body: payload }),
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body, headers: response.headers };
  }

  /** Runs a call, retrying network failures, 409, 429 and 5xx (with the same Idempotency-Key on POSTs). */
  async function request(method: string, path: string, body?: unknown, requestOptions: RequestOptions = {}) {
    const upper = method.toUpperCase();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // The URL exactly as fetch will send it (WHATWG-normalised): what a version 2 signature covers.
    const url = new URL(`${root}${API_PREFIX}${path}`);
    const headers: Record<string, string> = {};
    if (upper === "POST") headers["idempotency-key"] = requestOptions.idempotencyKey ?? randomUUID();
    for (let retry = 0; ; retry++) {
      let outcome: RawResponse | undefined;
      let failure: unknown;
      try {
        outcome = await attempt(upper, url, payload, headers, requestOptions.signal);
      } catch (error) {
        if (requestOptions.signal?.aborted) throw error;
        failure = error;
      }
      const retryable = outcome ? RETRYABLE_STATUS(outcome.status) : true;
      if (!retryable || retry >= maxRetries) {
        if (outcome) return outcome;
        throw networkError(`${upper} ${url}`, failure, { attempts: retry + 1, timeoutMs });
      }
      await pause(delayBefore(retry, outcome?.headers.get("retry-after")), requestOptions.signal);
    }
  }

  function delayBefore(retry: number, retryAfter: string | null | undefined): number {
    const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, maxDelay);
    const backoff = firstDelay * 2 ** retry;
    return Math.min(backoff / 2 + Math.random() * (backoff / 2), maxDelay);
  }

  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
    requestOptions?: RequestOptions,
  ): Promise<T> {
    const response = await request(method, path, body, requestOptions);
    if (response.status >= 200 && response.status < 300) return response.body as T;
    throw errorFromResponse(
      response.status,
      response.body,
      response.headers.get("x-request-id") ?? undefined,
    );
  }

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
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (value === undefined) continue;
        params.set(name, value instanceof Date ? value.toISOString() : String(value));
      }
      const search = params.size > 0 ? `?${params}` : "";
      const { data, pagination } = await call<TransactionPage>(
        "GET",
        `/transactions${search}`,
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
    sandbox: {
      async transfer(input, requestOptions) {
        return (await call<{ data: Transaction }>("POST", "/sandbox/transfers", input, requestOptions)).data;
      },
    },
  };
}

const accountPath = (accountNumber: string) => `/account/${encodeURIComponent(accountNumber)}`;

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
