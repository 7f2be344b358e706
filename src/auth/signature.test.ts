import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  canonicalRequest,
  canonicalSignature,
  canonicalTarget,
  EMPTY_BODY,
  isFresh,
  parseTimestamp,
  sign,
  signRequestV2,
  TIMESTAMP_TOLERANCE_MS,
  verifySignature,
  verifySignatureV2,
} from "./signature.js";

// Expected values were computed outside Node, with OpenSSL, for example:
//   printf 'what do ya want for nothing?' | openssl dgst -sha256 -hmac Jefe
//   printf '{"name":"Ada"}1700000000000' | openssl dgst -sha256 -hmac vsk_test_secret

const SECRET = "vsk_test_secret";
const BODY = '{"name":"Ada"}';
const TIMESTAMP = "1700000000000";
/** HMAC-SHA256(vsk_test_secret, '{"name":"Ada"}1700000000000') */
const BODY_SIGNATURE = "3395594d4f63334e59d3399c3f18ea0d3ed807f8b4f64df883b811f1890c119e";
/** HMAC-SHA256(vsk_test_secret, '{}1700000000000') */
const EMPTY_BODY_SIGNATURE = "16bd22406de07b46186b4b16df9647cb8a29f80927b9b189e8ebf3573c3ab633";
/** HMAC-SHA256(vsk_test_secret, '1700000000000'): an empty body, only the timestamp. */
const TIMESTAMP_ONLY_SIGNATURE = "3267d336987ddda78ec5b448a9b33a879b329107c17d537128e9c5e13c2ca227";

describe("sign", () => {
  test("RFC 4231 test case 2 (key Jefe)", () => {
    assert.equal(
      sign("Jefe", "what do ya want for nothing?", ""),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  test("RFC 4231 test case 1 (key 0x0b x 20, data Hi There)", () => {
    assert.equal(
      sign("\x0b".repeat(20), "Hi There", ""),
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    );
  });

  test("signs the body immediately followed by the timestamp, with no separator", () => {
    assert.equal(sign(SECRET, BODY, TIMESTAMP), BODY_SIGNATURE);
    // The same bytes split differently between body and timestamp sign the same.
    assert.equal(sign(SECRET, `${BODY}1700`, "000000000"), BODY_SIGNATURE);
    assert.equal(sign(SECRET, `${BODY}${TIMESTAMP}`, ""), BODY_SIGNATURE);
  });

  test("a separator between body and timestamp changes the signature", () => {
    // HMAC-SHA256(vsk_test_secret, '{"name":"Ada"}\n1700000000000')
    assert.equal(
      sign(SECRET, `${BODY}\n`, TIMESTAMP),
      "60e1cf43706447941713dbb7578e6b8031c614ade809562c9f60c976719af3ef",
    );
    assert.notEqual(sign(SECRET, `${BODY}\n`, TIMESTAMP), BODY_SIGNATURE);
  });

  test("the empty-body placeholder and the empty string", () => {
    assert.equal(EMPTY_BODY, "{}");
    assert.equal(sign(SECRET, EMPTY_BODY, TIMESTAMP), EMPTY_BODY_SIGNATURE);
    assert.equal(sign(SECRET, "", TIMESTAMP), TIMESTAMP_ONLY_SIGNATURE);
  });

  test("a numeric timestamp signs as its decimal digits", () => {
    assert.equal(sign(SECRET, BODY, 1_700_000_000_000), BODY_SIGNATURE);
  });

  test("raw bytes sign the same as the string they encode (UTF-8)", () => {
    assert.equal(sign(SECRET, Buffer.from(BODY, "utf8"), TIMESTAMP), BODY_SIGNATURE);
    assert.equal(sign(SECRET, new TextEncoder().encode(BODY), TIMESTAMP), BODY_SIGNATURE);
    // HMAC-SHA256(k, 'caf\xc3\xa91700000000000'): a non-ASCII body is hashed as UTF-8.
    const expected = "39af2e2b35283c36c02febc1bcfb380ab13254ef9777c352f228c167ec4382ae";
    assert.equal(sign("k", "café", TIMESTAMP), expected);
    assert.equal(sign("k", Buffer.from([0x63, 0x61, 0x66, 0xc3, 0xa9]), TIMESTAMP), expected);
  });

  test("is lowercase hex of 32 bytes", () => {
    assert.match(sign(SECRET, BODY, TIMESTAMP), /^[0-9a-f]{64}$/);
  });
});

describe("verifySignature", () => {
  test("accepts the right signature", () => {
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, BODY_SIGNATURE), true);
  });

  test("accepts upper-case and mixed-case hex", () => {
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, BODY_SIGNATURE.toUpperCase()), true);
    const mixed = [...BODY_SIGNATURE].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join("");
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, mixed), true);
  });

  test("rejects a signature of the wrong length", () => {
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, BODY_SIGNATURE.slice(0, 63)), false);
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, BODY_SIGNATURE.slice(0, 62)), false);
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, `${BODY_SIGNATURE}0`), false);
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, `${BODY_SIGNATURE}00`), false);
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, ""), false);
  });

  test("rejects non-hex characters, even where the hex decoder would stop early", () => {
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, `${BODY_SIGNATURE.slice(0, 63)}g`), false);
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, ` ${BODY_SIGNATURE.slice(1)}`), false);
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, `${BODY_SIGNATURE.slice(0, 62)}\n`), false);
    // Buffer.from(hex) would silently drop a trailing odd nibble; the signature must still fail.
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, `${BODY_SIGNATURE}z`), false);
  });

  test("rejects a signature made with another secret", () => {
    // HMAC-SHA256(vsk_other_secret, '{"name":"Ada"}1700000000000')
    const other = "8d38af4e4c025846c1622c239233f6989b4f64f1cec6135e4682d5afc697cba3";
    assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, other), false);
    assert.equal(verifySignature("vsk_other_secret", [BODY], TIMESTAMP, other), true);
    assert.equal(verifySignature("vsk_other_secret", [BODY], TIMESTAMP, BODY_SIGNATURE), false);
  });

  test("rejects a signature for another timestamp", () => {
    assert.equal(verifySignature(SECRET, [BODY], "1700000000001", BODY_SIGNATURE), false);
    assert.equal(verifySignature(SECRET, [BODY], "", BODY_SIGNATURE), false);
  });

  test("rejects a signature for another body", () => {
    assert.equal(verifySignature(SECRET, ['{"name":"Bob"}'], TIMESTAMP, BODY_SIGNATURE), false);
  });

  test("rejects a single flipped hex digit anywhere", () => {
    for (let i = 0; i < 64; i++) {
      const c = BODY_SIGNATURE[i] as string;
      const flipped = `${BODY_SIGNATURE.slice(0, i)}${c === "0" ? "1" : "0"}${BODY_SIGNATURE.slice(i + 1)}`;
      assert.equal(verifySignature(SECRET, [BODY], TIMESTAMP, flipped), false, `digit ${i}`);
    }
  });

  test("accepts when any candidate body matches, whatever its position", () => {
    assert.equal(verifySignature(SECRET, ["nope", BODY], TIMESTAMP, BODY_SIGNATURE), true);
    assert.equal(verifySignature(SECRET, [BODY, "nope"], TIMESTAMP, BODY_SIGNATURE), true);
    assert.equal(verifySignature(SECRET, [EMPTY_BODY, ""], TIMESTAMP, EMPTY_BODY_SIGNATURE), true);
    assert.equal(verifySignature(SECRET, [EMPTY_BODY, ""], TIMESTAMP, TIMESTAMP_ONLY_SIGNATURE), true);
  });

  test("the first matching form ends the search: a later form is never computed", () => {
    let computed = 0;
    function* forms() {
      computed++;
      yield BODY;
      computed++;
      yield "the compact form";
    }
    assert.equal(verifySignature(SECRET, forms(), TIMESTAMP, BODY_SIGNATURE), true);
    assert.equal(computed, 1);
    computed = 0;
    assert.equal(verifySignature(SECRET, forms(), TIMESTAMP, EMPTY_BODY_SIGNATURE), false);
    assert.equal(computed, 2, "a signature that matches nothing is checked against every form");
  });

  test("candidates may be raw bytes or strings", () => {
    assert.equal(verifySignature(SECRET, [Buffer.from(BODY)], TIMESTAMP, BODY_SIGNATURE), true);
    assert.equal(verifySignature(SECRET, ["x", Buffer.from(BODY)], TIMESTAMP, BODY_SIGNATURE), true);
    assert.equal(verifySignature(SECRET, [Buffer.from("x"), BODY], TIMESTAMP, BODY_SIGNATURE), true);
    assert.equal(verifySignature(SECRET, [Buffer.from(`${BODY} `)], TIMESTAMP, BODY_SIGNATURE), false);
  });

  test("no candidates, no match", () => {
    assert.equal(verifySignature(SECRET, [], TIMESTAMP, BODY_SIGNATURE), false);
  });

  test("round-trips with sign", () => {
    const body = JSON.stringify({ name: "Ọlá", email: "ola@example.com", bvn: "12345678901" });
    const signature = sign(SECRET, body, TIMESTAMP);
    assert.equal(verifySignature(SECRET, [body], TIMESTAMP, signature), true);
    assert.equal(verifySignature(SECRET, [Buffer.from(body, "utf8")], TIMESTAMP, signature), true);
  });
});

describe("parseTimestamp", () => {
  test("accepts decimal digits", () => {
    assert.equal(parseTimestamp("1700000000000"), 1_700_000_000_000);
    assert.equal(parseTimestamp("0"), 0);
    assert.equal(parseTimestamp("7"), 7);
    assert.equal(parseTimestamp("0012"), 12);
  });

  test("accepts up to 16 digits when the value is a safe integer", () => {
    assert.equal(parseTimestamp("1234567890123456"), 1_234_567_890_123_456);
    assert.equal(parseTimestamp("9007199254740991"), Number.MAX_SAFE_INTEGER);
  });

  test("rejects 16-digit values beyond the safe integers", () => {
    assert.equal(parseTimestamp("9007199254740992"), undefined);
    assert.equal(parseTimestamp("9999999999999999"), undefined);
  });

  for (const bad of [
    "",
    "-1",
    "+1",
    "1.5",
    "1e12",
    " 12",
    "12 ",
    "12\n",
    "0x10",
    "abc",
    "١٢٣", // Arabic-Indic digits are not ASCII digits
    "12345678901234567", // 17 digits
    "00000000000000000",
  ]) {
    test(`rejects ${JSON.stringify(bad)}`, () => {
      assert.equal(parseTimestamp(bad), undefined);
    });
  }
});

describe("isFresh", () => {
  const now = 1_700_000_000_000;
  const five = 5 * 60 * 1000;

  test("the tolerance is five minutes", () => {
    assert.equal(TIMESTAMP_TOLERANCE_MS, 300_000);
  });

  test("the same instant is fresh", () => {
    assert.equal(isFresh(now, now), true);
  });

  test("exactly five minutes either side is fresh (inclusive)", () => {
    assert.equal(isFresh(now - five, now), true);
    assert.equal(isFresh(now + five, now), true);
  });

  test("one millisecond past five minutes either side is stale", () => {
    assert.equal(isFresh(now - five - 1, now), false);
    assert.equal(isFresh(now + five + 1, now), false);
  });

  test("far away timestamps are stale", () => {
    assert.equal(isFresh(0, now), false);
    assert.equal(isFresh(now * 2, now), false);
  });
});

// Version 2 vectors, checked with OpenSSL (the same values are in docs/api.md):
//   printf 'VAS2-HMAC-SHA256\n1700000000000\nGET\n/api/v1/external/account/list\nlimit=10&page=2\n\ne3b0...b855' \
//     | openssl dgst -sha256 -hmac vsk_test_secret
const V2_VECTORS = [
  {
    request: {
      method: "POST",
      url: "/api/v1/external/account/generate",
      timestamp: "1700000000000",
      idempotencyKey: "order-1001",
      body: '{"name":"Ada Obi","email":"ada@example.com","bvn":"22345678901"}',
    },
    canonical:
      "VAS2-HMAC-SHA256\n1700000000000\nPOST\n/api/v1/external/account/generate\n\norder-1001\n" +
      "25182174125cff5effd50f3c953c86b9ad6487b97e145a07b153edb2b3eb3c2c",
    signature: "13db1e77e34d2fa9849bfacb3e4edcc85262329b9028df43fa26085ae5a86437",
  },
  {
    request: {
      method: "GET",
      url: "/api/v1/external/account/list?page=2&limit=10",
      timestamp: "1700000000000",
    },
    canonical:
      "VAS2-HMAC-SHA256\n1700000000000\nGET\n/api/v1/external/account/list\nlimit=10&page=2\n\n" +
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    signature: "6ff1de59d73ee3a09a6dc529cbfedb9f6dedcc9e9d4e982d73cc224086a9915b",
  },
];

describe("version 2", () => {
  test("the documented vectors", () => {
    for (const vector of V2_VECTORS) {
      assert.equal(canonicalRequest(vector.request), vector.canonical);
      assert.equal(signRequestV2(SECRET, vector.request), vector.signature);
      assert.ok(verifySignatureV2(SECRET, vector.request, vector.signature.toUpperCase()));
    }
  });

  test("docs/api.md shows the same vectors", async () => {
    const { readFile } = await import("node:fs/promises");
    const docs = await readFile(new URL("../../docs/api.md", import.meta.url), "utf8");
    for (const vector of V2_VECTORS) assert.ok(docs.includes(vector.signature), vector.signature);
  });

  test("equivalent encodings of a target canonicalise alike; different targets differ", () => {
    const same = [
      "/api/v1/external/account/list?page=2&limit=10",
      "/api/v1/external/account/list?limit=10&page=2",
      "/api/v1/external/account/%6cist?limit=1%30&page=2",
      "/api/v1/external/account/list?&limit=10&&page=2",
    ];
    const expected = canonicalTarget(same[0] as string);
    for (const url of same) assert.deepEqual(canonicalTarget(url), expected, url);
    assert.deepEqual(canonicalTarget("/a?q=x+y"), canonicalTarget("/a?q=x%20y"));
    assert.deepEqual(canonicalTarget("/a?q=~*"), { path: "/a", query: "q=~%2A" });
    assert.deepEqual(canonicalTarget("/a?b=2&a=2&a=1"), { path: "/a", query: "a=1&a=2&b=2" });
    assert.notDeepEqual(canonicalTarget("/a?limit=1"), canonicalTarget("/a?limit=100"));
    assert.equal(canonicalTarget("/%zz"), undefined);
    assert.equal(canonicalTarget("/a?q=%E0%A4"), undefined, "not UTF-8");
  });

  test("each part of the request is bound", () => {
    const base = V2_VECTORS[0]?.request as Parameters<typeof signRequestV2>[1];
    const signature = signRequestV2(SECRET, base);
    for (const changed of [
      { ...base, method: "PUT" },
      { ...base, url: "/api/v1/external/account/generate/temporary" },
      { ...base, url: `${base.url}?x=1` },
      { ...base, idempotencyKey: "order-1002" },
      { ...base, idempotencyKey: undefined },
      { ...base, body: `${base.body} ` },
      { ...base, timestamp: "1700000000001" },
    ]) {
      assert.equal(verifySignatureV2(SECRET, changed, signature), false, JSON.stringify(changed));
    }
  });
});

describe("canonicalSignature", () => {
  test("64 hex digits, lower-cased; nothing else", () => {
    assert.equal(canonicalSignature(BODY_SIGNATURE.toUpperCase()), BODY_SIGNATURE);
    for (const bad of [
      `${BODY_SIGNATURE} `,
      `\u00a0${BODY_SIGNATURE}`,
      `${BODY_SIGNATURE}\ufeff`,
      BODY_SIGNATURE.slice(1),
      `${BODY_SIGNATURE}0`,
      `${BODY_SIGNATURE.slice(1)}g`,
    ]) {
      assert.equal(canonicalSignature(bad), undefined, JSON.stringify(bad));
    }
  });
});
