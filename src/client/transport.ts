import { randomUUID } from "node:crypto";
import { EMPTY_BODY, type SignatureVersion, sign, signRequestV2 } from "../auth/signature.js";
import { errorFromResponse, networkError } from "./errors.js";

// How the SDK talks to the service: the base URL, signing each attempt, retrying what is safe to
// retry (with the same Idempotency-Key), and turning a refusal into a VasApiError.

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

export interface RequestOptions {
  /** Sent as Idempotency-Key; generated when absent. Reuse it to retry the same operation later. */
  idempotencyKey?: string;
  signal?: AbortSignal;
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

/** A signed caller for one client's options: `request` answers whatever the status, `call` throws on 4xx/5xx. */
export function createTransport(options: ClientOptions) {
  const root = serviceRoot(options.baseUrl);
  requireKey("apiKey", "API key (vak_…)", options.apiKey);
  requireKey("secretKey", "secret key (vsk_…)", options.secretKey);
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

  return { request, call };
}

/**
 * Throws a TypeError at createClient for a key that is missing or blank (an unset environment
 * variable, typically): signing would fail every attempt, reported after the retries as a
 * network error about a "key" argument. The value itself is never repeated.
 */
function requireKey(option: string, what: string, value: unknown): void {
  if (typeof value === "string" && value.trim() !== "") return;
  const got =
    value === undefined || value === null
      ? String(value)
      : typeof value === "string"
        ? "empty"
        : `a ${typeof value}`;
  throw new TypeError(
    `${option} is ${got}: createClient needs the business's ${what}, as vas business create or the dashboard's API keys page issued it`,
  );
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
