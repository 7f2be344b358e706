import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  isNonPublicAddress,
  isNonPublicHost,
  MAX_URL_LENGTH,
  URL_ON_THE_WIRE,
  urlProblem,
} from "./address-policy.js";

// The address rule as a table: what production may deliver to, and what it may not. The IPv4
// rows are the regression: a BlockList rule for ::ffff:0:0/96 once matched every IPv4 address.

const PUBLIC = [
  "1.1.1.1",
  "8.8.8.8",
  "41.58.12.7", // a Lagos address
  "100.63.255.255", // just below carrier-grade NAT
  "100.128.0.0", // just above it
  "172.15.255.255",
  "172.32.0.0",
  "192.167.255.255",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2a00:1450:4009:81f::200e",
  "::ffff:1.1.1.1", // mapped public IPv4
  "::ffff:0:8.8.8.8", // translated public IPv4
  "64:ff9b::808:808", // NAT64 of 8.8.8.8
  "2002:0808:0808::1", // 6to4 of 8.8.8.8
];

const NON_PUBLIC = [
  "0.0.0.0",
  "10.0.0.1",
  "100.64.0.1",
  "127.0.0.1",
  "127.255.255.254",
  "169.254.169.254",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.8",
  "192.0.2.1",
  "192.168.1.1",
  "198.18.0.1",
  "224.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "ff02::1",
  "2001:db8::1",
  "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
  "::ffff:127.0.0.1", // mapped
  "::ffff:7f00:1", // mapped, written in hex
  "::ffff:10.0.0.1",
  "::ffff:169.254.169.254",
  "::ffff:0:127.0.0.1", // translated
  "::127.0.0.1", // compatible
  "::7f00:1",
  "::a00:1", // compatible 10.0.0.1
  "64:ff9b::7f00:1", // NAT64 of loopback
  "64:ff9b::a9fe:a9fe", // NAT64 of the metadata address
  "64:ff9b:1::8.8.8.8", // local-use NAT64
  "2002:7f00::1", // 6to4 of 127.0.0.0/8
  "2002:7f00:0001::",
  "2002:c0a8:0101::1", // 6to4 of 192.168.1.1
  "not an address",
];

describe("webhook address policy", () => {
  test("public IPv4 and IPv6 addresses are deliverable", () => {
    for (const address of PUBLIC) assert.equal(isNonPublicAddress(address), false, address);
  });

  test("private, loopback, link-local, reserved and embedded non-public addresses are not", () => {
    for (const address of NON_PUBLIC) assert.equal(isNonPublicAddress(address), true, address);
  });

  test("hosts: literals as above, localhost, single labels and trailing dots judged without them", () => {
    for (const host of ["hooks.example.com", "hooks.example.com.", "1.1.1.1", "[2606:4700:4700::1111]"]) {
      assert.equal(isNonPublicHost(host), false, host);
    }
    for (const host of [
      "localhost",
      "localhost.",
      "api.localhost",
      "intranet",
      "intranet.",
      "[::1]",
      "10.0.0.1",
    ]) {
      assert.equal(isNonPublicHost(host), true, host);
    }
  });

  test("at save, in production: public addresses accepted, the rest refused as WEBHOOK_ALLOW_PRIVATE says", () => {
    const production = { requireHttps: true, allowPrivate: false };
    for (const address of PUBLIC) {
      const host = address.includes(":") ? `[${address}]` : address;
      assert.equal(urlProblem(`https://${host}/hook`, production), undefined, address);
    }
    const refusals = [
      ...NON_PUBLIC.filter((a) => a !== "not an address" && !a.includes("%")).map((a) =>
        a.includes(":") ? `[${a}]` : a,
      ),
      "[::ffff:0:127.0.0.1]",
      "[::127.0.0.1]",
      "localhost.",
      "intranet",
      "2130706433", // 127.0.0.1 as one number: the URL parser makes it a literal
      "0x7f.1",
    ];
    for (const host of refusals) {
      assert.match(urlProblem(`https://${host}/hook`, production) ?? "", /public address/, host);
      assert.equal(
        urlProblem(`https://${host}/hook`, { ...production, allowPrivate: true }),
        undefined,
        host,
      );
    }
  });

  test("every URL the document's pattern takes is one the server takes, the address policy aside", () => {
    const anywhere = { requireHttps: false, allowPrivate: true };
    // As Ajv compiles the pattern (the `u` flag) and as a validator without it would.
    const patterns = [URL_ON_THE_WIRE, new RegExp(URL_ON_THE_WIRE.source, "u")];
    fc.assert(
      fc.property(
        fc.stringMatching(URL_ON_THE_WIRE).filter((url) => url.length <= MAX_URL_LENGTH),
        (url) => {
          for (const pattern of patterns) assert.ok(pattern.test(url), url);
          assert.equal(urlProblem(url, anywhere), undefined, url);
        },
      ),
      { numRuns: 1_000 },
    );
    for (const refused of ["", "https://xn--abc.example/", "http://a.0x1/", "http://a.example:65536/"])
      assert.ok(!URL_ON_THE_WIRE.test(refused) && urlProblem(refused, anywhere) !== undefined, refused);
  });

  test("an empty url says what to send", () => {
    for (const empty of ["", " "])
      assert.equal(
        urlProblem(empty, { requireHttps: false, allowPrivate: true }),
        "url must not be empty: send an absolute http or https URL",
      );
    assert.equal(urlProblem(7, { requireHttps: false, allowPrivate: true }), "url must be a string");
  });
});
