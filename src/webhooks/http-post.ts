import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { ADDRESS_NOT_ALLOWED, isNonPublicAddress, isNonPublicHost } from "./address-policy.js";

// Delivery attempts over HTTP: a POST that never follows a redirect, gives up after the
// timeout, keeps the first 1 KiB of the answer, and (unless private addresses are allowed)
// connects only to a public address: the address checked is the one connected to, so a DNS
// answer that changes between a check and the connection (rebinding) cannot slip through.

export const RESPONSE_EXCERPT_BYTES = 1_024;

export interface PostResult {
  status?: number;
  retryAfter?: string;
  excerpt?: string;
  error?: string;
  durationMs: number;
}

export class BlockedAddressError extends Error {}

type Resolve = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A socket's lookup that resolves with `resolve` and refuses every non-public address it answers. */
export function publicOnlyLookup(resolve: Resolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const usable = addresses.filter((a) => !isNonPublicAddress(a.address));
      if (usable.length === 0) {
        const blocked = new BlockedAddressError(ADDRESS_NOT_ALLOWED);
        return callback(blocked as NodeJS.ErrnoException, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      const first = usable[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

const systemPublicOnlyLookup = publicOnlyLookup();

export interface PosterOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * Sends delivery attempts over kept-alive connections: its agents keep a pool per receiver's
 * origin, so a busy receiver is not paying a TCP (and TLS) handshake per event, and a receiver
 * that hangs holds its own connections only (the worker caps what one endpoint has in flight).
 * Node's agents, not undici's: measured in issue 29, undici delivered no faster here and
 * loaded 20 MB more (docs/performance.md).
 */
export class WebhookPoster {
  // Set as Node's global agents are (which attempts used before): connections kept alive, the
  // most recently used first, a socket timed out after 5 s.
  private readonly agents = {
    "http:": new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: 5_000 }),
    "https:": new https.Agent({ keepAlive: true, scheduling: "lifo", timeout: 5_000 }),
  };

  constructor(private readonly options: PosterOptions) {}

  post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const { timeoutMs, allowPrivate } = this.options;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(url);
    // An address literal is connected to without a lookup: judged here.
    if (!allowPrivate && isNonPublicHost(target.hostname)) {
      return Promise.resolve({ error: ADDRESS_NOT_ALLOWED, durationMs: 0 });
    }
    const secure = target.protocol === "https:";
    return new Promise((resolve) => {
      const request = (secure ? https : http).request(
        target,
        {
          method: "POST",
          agent: this.agents[secure ? "https:" : "http:"],
          headers: {
            ...headers,
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body)),
            "user-agent": "virtual-account-service-webhooks/1",
          },
          signal: AbortSignal.timeout(timeoutMs),
          ...(allowPrivate ? {} : { lookup: systemPublicOnlyLookup }),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on("data", (chunk: Buffer) => {
            if (kept >= RESPONSE_EXCERPT_BYTES) return;
            chunks.push(chunk);
            kept += chunk.length;
          });
          const finish = () => {
            const retryAfter = response.headers["retry-after"];
            resolve({
              status: response.statusCode ?? 0,
              ...(typeof retryAfter === "string" ? { retryAfter } : {}),
              excerpt: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8"),
              durationMs: elapsed(),
            });
          };
          response.on("end", finish);
          response.on("error", finish);
          response.on("aborted", finish);
        },
      );
      request.on("error", (error) => {
        const message =
          error.name === "AbortError" || error.name === "TimeoutError"
            ? `no answer within ${timeoutMs} ms`
            : error instanceof BlockedAddressError
              ? ADDRESS_NOT_ALLOWED
              : error.message;
        resolve({ error: message, durationMs: elapsed() });
      });
      request.end(body);
    });
  }

  /** Closes the kept connections (the worker stops after its attempts in flight). */
  close(): void {
    this.agents["http:"].destroy();
    this.agents["https:"].destroy();
  }
}

/** One attempt on connections of its own, closed after it (tests, and a one-off send). */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PosterOptions,
): Promise<PostResult> {
  const poster = new WebhookPoster(options);
  try {
    return await poster.post(url, body, headers);
  } finally {
    poster.close();
  }
}
