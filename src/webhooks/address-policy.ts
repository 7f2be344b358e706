import { BlockList, isIP } from "node:net";

// Which addresses a webhook may be delivered to (no SSRF): in production only public ones,
// unless the operator allows private ones. Checked on the address actually connected to.

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::ffff:0:0", 96], // IPv4-mapped: checked as IPv4 below
  ["64:ff9b::", 96], // NAT64
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** True when `address` (an IP literal) is loopback, private, link-local, metadata or otherwise not public. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1] as string, "ipv4");
    return blocked.check(address, "ipv6");
  }
  return blocked.check(address, "ipv4");
}

/** Where webhooks may go: the operator's settings (production: https, public addresses). */
export interface UrlPolicy {
  requireHttps: boolean;
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2048;

/**
 * Why `value` cannot be a webhook URL, or undefined when it can (as far as can be told before
 * resolving its host: the address is checked again on every delivery).
 */
export function urlProblem(value: unknown, policy: UrlPolicy): string | undefined {
  if (typeof value !== "string" || value.length === 0) return "url must be a string";
  if (value.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "url must be an absolute http or https URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "url must be an http or https URL";
  if (policy.requireHttps && url.protocol !== "https:") return "url must be https";
  if (url.username !== "" || url.password !== "") return "url must not contain credentials";
  if (url.hash !== "") return "url must not contain a fragment";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (
    !policy.allowPrivate &&
    (host === "localhost" || host.endsWith(".localhost") || (isIP(host) !== 0 && isNonPublicAddress(host)))
  ) {
    return "url must point to a public address (set WEBHOOK_ALLOW_PRIVATE=true to deliver inside your network)";
  }
  return undefined;
}
