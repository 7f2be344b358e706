import { BlockList, isIP } from "node:net";

// A key's payout addresses (issue 26, item 8): the client addresses a key may send payouts and
// refunds from, as single addresses or CIDR ranges, IPv4 or IPv6. Pure: parsed once, matched
// with node's BlockList (an IPv4-mapped IPv6 address matches its IPv4 entry).

/** The most entries one key may list. */
export const MAX_PAYOUT_IPS = 50;

export class PayoutIpsError extends Error {
  override readonly name = "PayoutIpsError";
}

/** `"203.0.113.7, 10.0.0.0/8, 2001:db8::/32"`: each entry checked, duplicates dropped, order kept. */
export function parsePayoutIps(text: string): string[] {
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) throw new PayoutIpsError("give at least one address or CIDR range");
  if (entries.length > MAX_PAYOUT_IPS) throw new PayoutIpsError(`at most ${MAX_PAYOUT_IPS} entries`);
  for (const entry of entries) checkEntry(entry);
  return [...new Set(entries)];
}

function checkEntry(entry: string): void {
  const [address = "", prefix, extra] = entry.split("/");
  const family = isIP(address);
  const bits = family === 4 ? 32 : 128;
  const validPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
  if (family === 0 || extra !== undefined || !validPrefix) {
    throw new PayoutIpsError(`${entry} is not an IP address or a CIDR range like 203.0.113.0/24`);
  }
}

/** Whether `ip` (the request's client address) is one of `entries`. */
export function allowsAddress(entries: readonly string[], ip: string): boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  const address = mapped ?? ip;
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? "ipv6" : "ipv4");
}
