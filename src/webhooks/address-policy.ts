import { isIP } from "node:net";

// Which addresses a webhook may be delivered to (no SSRF): in production only public ones,
// unless the operator allows private ones. Judged on the URL when it is saved and again on the
// address actually connected to. IPv6 forms that carry an IPv4 address (mapped, translated,
// compatible, 6to4, NAT64) are judged by the IPv4 address they carry.
//
// Node's BlockList is not used: an IPv6 rule for ::ffff:0:0/96 makes it match every plain IPv4
// address, which once refused every IPv4 receiver in production.

type Range = readonly [network: bigint, prefix: number];

const v4 = (text: string, prefix: number): Range => [ipv4Value(text) as bigint, prefix];
const v6 = (text: string, prefix: number): Range => [ipv6Value(text) as bigint, prefix];

const NON_PUBLIC_V4: readonly Range[] = [
  v4("0.0.0.0", 8), // "this" network
  v4("10.0.0.0", 8), // private
  v4("100.64.0.0", 10), // carrier-grade NAT
  v4("127.0.0.0", 8), // loopback
  v4("169.254.0.0", 16), // link-local, cloud metadata (169.254.169.254)
  v4("172.16.0.0", 12), // private
  v4("192.0.0.0", 24), // IETF protocol assignments
  v4("192.0.2.0", 24), // documentation
  v4("192.88.99.0", 24), // 6to4 relay anycast
  v4("192.168.0.0", 16), // private
  v4("198.18.0.0", 15), // benchmarking
  v4("198.51.100.0", 24), // documentation
  v4("203.0.113.0", 24), // documentation
  v4("224.0.0.0", 4), // multicast
  v4("240.0.0.0", 4), // reserved, broadcast
];

const NON_PUBLIC_V6: readonly Range[] = [
  v6("::", 128), // unspecified
  v6("::1", 128), // loopback
  v6("64:ff9b:1::", 48), // local-use NAT64: its IPv4 side is a private network
  v6("100::", 64), // discard
  v6("2001::", 32), // Teredo: the client's IPv4 address is hidden in it
  v6("2001:db8::", 32), // documentation
  v6("fc00::", 7), // unique local
  v6("fe80::", 10), // link-local
  v6("fec0::", 10), // site-local (deprecated)
  v6("ff00::", 8), // multicast
];

/** Where an IPv6 address carries an IPv4 one: the range, and how far right the IPv4 sits. */
const EMBEDDING_V4: readonly (readonly [Range, number])[] = [
  [v6("::ffff:0:0", 96), 0], // IPv4-mapped
  [v6("::ffff:0:0:0", 96), 0], // IPv4-translated (SIIT)
  [v6("::", 96), 0], // IPv4-compatible (deprecated): ::127.0.0.1
  [v6("64:ff9b::", 96), 0], // NAT64 well-known prefix
  [v6("2002::", 16), 80], // 6to4: 2002:AABB:CCDD::
];

const inRange = (value: bigint, bits: number, [network, prefix]: Range): boolean =>
  value >> BigInt(bits - prefix) === network >> BigInt(bits - prefix);

function ipv4Value(text: string): bigint | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split(".").reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/** The 128-bit value of an IPv6 literal (with or without an embedded dotted quad). */
function ipv6Value(text: string): bigint | undefined {
  if (isIP(text) !== 6) return undefined;
  let address = text.replace(/%.*$/, ""); // a zone id says which interface, not where
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const value = Number(ipv4Value(dotted[1] as string));
    address = `${address.slice(0, dotted.index)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function ipv4IsNonPublic(value: bigint): boolean {
  return NON_PUBLIC_V4.some((range) => inRange(value, 32, range));
}

/** True when `address` (an IP literal) is loopback, private, link-local, metadata or otherwise not public. */
export function isNonPublicAddress(address: string): boolean {
  const four = ipv4Value(address);
  if (four !== undefined) return ipv4IsNonPublic(four);
  const six = ipv6Value(address);
  if (six === undefined) return true;
  for (const [range, shift] of EMBEDDING_V4) {
    if (inRange(six, 128, range)) return ipv4IsNonPublic((six >> BigInt(shift)) & 0xffffffffn);
  }
  return NON_PUBLIC_V6.some((range) => inRange(six, 128, range));
}

/** Where webhooks may go: the operator's settings (production: https, public addresses). */
export interface UrlPolicy {
  requireHttps: boolean;
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2048;

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const LABEL = "[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*";
/** A host name's last label starts with a letter: one ending in a number is read as IPv4. */
const LAST_LABEL = "[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*";
const PORT = "(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0)";

/**
 * A webhook URL as the OpenAPI document states it: http(s), a host name or an IPv4 address, an
 * optional port, then a path and query of visible ASCII, no credentials, no fragment. Everything
 * it matches passes urlProblem but the address policy (the operator's https and public-address
 * settings); `new URL` takes more (an IPv6 literal, an internationalised name, white space it
 * strips), which the server still accepts. No `--` in a label, so no `xn--` label that does not
 * decode. address-policy.test.ts holds the two together.
 */
export const URL_ON_THE_WIRE = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://(?:(?:${OCTET}\\.){3}${OCTET}|(?:${LABEL}\\.)*${LAST_LABEL})(?::${PORT})?(?:[/?][!-"$-~]*)?$`,
);

/** What a delivery attempt records when the address is refused: never the DNS answer. */
export const ADDRESS_NOT_ALLOWED = "address not allowed";

/**
 * True when a URL's host (as `new URL` gives it: brackets kept off, a trailing dot kept) names
 * somewhere only a private network reaches without resolving it: an IP literal that is not
 * public, localhost, or a single-label name (resolved through the machine's search domains).
 */
export function isNonPublicHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  if (isIP(host) !== 0) return isNonPublicAddress(host);
  if (host === "" || !host.includes(".")) return true;
  return host === "localhost" || host.endsWith(".localhost");
}

/**
 * Why `value` cannot be a webhook URL, or undefined when it can (as far as can be told before
 * resolving its host: the address is checked again on every delivery).
 */
export function urlProblem(value: unknown, policy: UrlPolicy): string | undefined {
  if (typeof value !== "string") return "url must be a string";
  if (value.trim() === "") return "url must not be empty: send an absolute http or https URL";
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
  if (!policy.allowPrivate && isNonPublicHost(url.hostname)) {
    return "url must point to a public address (set WEBHOOK_ALLOW_PRIVATE=true to deliver inside your network)";
  }
  return undefined;
}
