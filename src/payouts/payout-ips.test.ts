import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { allowsAddress, PayoutIpsError, parsePayoutIps } from "./payout-ips.js";

describe("a key's payout addresses", () => {
  test("addresses and CIDR ranges, IPv4 and IPv6, are read and matched", () => {
    const entries = parsePayoutIps(" 203.0.113.7, 10.0.0.0/8 ,2001:db8::/32, 203.0.113.7");
    assert.deepEqual(entries, ["203.0.113.7", "10.0.0.0/8", "2001:db8::/32"]);
    assert.ok(allowsAddress(entries, "203.0.113.7"));
    assert.ok(!allowsAddress(entries, "203.0.113.8"));
    assert.ok(allowsAddress(entries, "10.200.3.4"));
    assert.ok(allowsAddress(entries, "::ffff:10.1.2.3"), "an IPv4-mapped address matches its IPv4 entry");
    assert.ok(allowsAddress(entries, "2001:db8:1::5"));
    assert.ok(!allowsAddress(entries, "2001:db9::1"));
    assert.ok(!allowsAddress(entries, "not an address"));
  });

  test("anything else is refused with the entry named", () => {
    for (const bad of [
      "",
      " , ",
      "300.1.1.1",
      "10.0.0.0/33",
      "10.0.0.0/8/1",
      "example.com",
      "::1/129",
      "1.2.3.4/x",
    ]) {
      assert.throws(() => parsePayoutIps(bad), PayoutIpsError, bad);
    }
    assert.throws(
      () => parsePayoutIps(Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`).join(",")),
      /at most 50/,
    );
  });
});
