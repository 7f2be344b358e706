import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isNonPublicAddress } from "./address-policy.js";

// One delivery attempt over HTTP: a POST that never follows a redirect, gives up after the
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

/** dns.lookup, refusing every non-public address it would hand to the socket. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    const usable = addresses.filter((a) => !isNonPublicAddress(a.address));
    if (usable.length === 0) {
      const blocked = new BlockedAddressError(`${hostname} resolves only to non-public addresses`);
      return callback(blocked as NodeJS.ErrnoException, "", 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
    const first = usable[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};

export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (!options.allowPrivate && isIP(host) !== 0 && isNonPublicAddress(host)) {
    return Promise.resolve({ error: `${host} is not a public address`, durationMs: 0 });
  }
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      target,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "virtual-account-service-webhooks/1",
        },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
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
          ? `no answer within ${options.timeoutMs} ms`
          : error.message;
      resolve({ error: message, durationMs: elapsed() });
    });
    request.end(body);
  });
}
