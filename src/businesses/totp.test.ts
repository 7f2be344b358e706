import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, test } from "node:test";
import { acceptedTotpStep, newTotpSecret, totpCode, totpUri } from "./totp.js";

// RFC 6238's SHA-1 test secret, "12345678901234567890", in base32.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("TOTP", () => {
  test("codes match RFC 6238's test vectors (SHA-1, the last 6 digits)", () => {
    // Appendix B: T = 59 s -> 94287082, 1111111109 s -> 07081804, 2000000000 s -> 69279037.
    assert.equal(totpCode(RFC_SECRET, 59_000), "287082");
    assert.equal(totpCode(RFC_SECRET, 1_111_111_109_000), "081804");
    assert.equal(totpCode(RFC_SECRET, 2_000_000_000_000), "279037");
  });

  test("the code is HOTP of the 30-second step (checked independently with node:crypto)", () => {
    const step = Math.floor(1_234_567_890 / 30);
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(step));
    const mac = createHmac("sha1", Buffer.from("12345678901234567890")).update(counter).digest();
    const offset = (mac[19] as number) & 0x0f;
    const binary = mac.readUInt32BE(offset) & 0x7fffffff;
    assert.equal(totpCode(RFC_SECRET, 1_234_567_890_000), String(binary % 1_000_000).padStart(6, "0"));
  });

  test("accepts the current step and one either side, each once, and nothing else", () => {
    const now = 1_800_000_000_000;
    const step = Math.floor(now / 30_000);
    assert.equal(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, now), now, null), step);
    assert.equal(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, now - 30_000), now, null), step - 1);
    assert.equal(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, now + 30_000), now, null), step + 1);
    assert.equal(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, now - 90_000), now, null), undefined);
    assert.equal(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, now), now, step), undefined, "used once");
    assert.equal(acceptedTotpStep(RFC_SECRET, "12345", now, null), undefined);
    assert.equal(acceptedTotpStep(RFC_SECRET, "abcdef", now, null), undefined);
  });

  test("a new secret is 160 random bits in base32, and the URI names the issuer and the user", () => {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.notEqual(secret, newTotpSecret());
    const uri = totpUri(secret, "owner@example.com");
    assert.match(uri, /^otpauth:\/\/totp\/Virtual%20Account%20Service:owner%40example\.com\?/);
    assert.match(uri, new RegExp(`secret=${secret}`));
  });
});
