import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_BUSINESS_NAME_LENGTH, parseBusinessName } from "../businesses/business-name.js";
import { parseListQuery } from "../core/validation.js";
import { AppError, ErrorCode } from "../errors.js";
import {
  DEFAULT_DURATION_MINUTES,
  MAX_NAME_LENGTH,
  parsePermanentInput,
  parseTemporaryInput,
} from "./validation.js";

const BVN = "12345678901";
const NIN = "10987654321";
const valid = { name: "Ada Lovelace", email: "ada@example.com", bvn: BVN };

/** Asserts that `run` throws a 400 VALIDATION_FAILED AppError with exactly `message`. */
function assertInvalid(run: () => unknown, message: string | RegExp) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.code, ErrorCode.VALIDATION_FAILED);
    assert.equal(error.statusCode, 400);
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

const codePoints = (text: string) =>
  [...text].map((c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`).join(" ");

const BIDI_CONTROLS = [
  "\u061c",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
];
/** Zero-width, filler and blank characters: a name of only these shows nothing. */
const INVISIBLE = [
  "\u200b",
  "\u200c",
  "\u200d",
  "\u2060",
  "\ufeff",
  "\u3164",
  "\u115f",
  "\u1160",
  "\uffa0",
  "\u180e",
  "\u00ad",
  "\u034f",
  "\u2800",
  "\ufe0f",
  "\u{e0020}",
];
/** Scripts that need ZWJ and ZWNJ inside words, and an emoji sequence joined by ZWJ. */
const NAMES_THAT_NEED_JOINERS = [
  "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
  "क्\u200dष",
  "👩\u200d💻 Ada",
];

const permanent = (body: Record<string, unknown>) => () => parsePermanentInput(body);
const temporary = (body: Record<string, unknown>) => () => parseTemporaryInput(body);

// Both endpoints share the same name, email and identity rules.
for (const [label, parse] of [
  ["parsePermanentInput", parsePermanentInput],
  ["parseTemporaryInput", parseTemporaryInput],
] as const) {
  describe(`${label}: required fields and their order`, () => {
    test("a valid body", () => {
      const input = parse(valid);
      assert.equal(input.name, "Ada Lovelace");
      assert.equal(input.email, "ada@example.com");
      assert.deepEqual(input.identity, { type: "bvn", number: BVN });
    });

    test("an empty body says name is required (name is checked first)", () => {
      assertInvalid(() => parse({}), "name is required");
    });

    test("name, then email, then identity: the first problem wins", () => {
      assertInvalid(() => parse({ email: "ada@example.com", bvn: BVN }), "name is required");
      assertInvalid(() => parse({ name: "Ada", bvn: BVN }), "email is required");
      assertInvalid(() => parse({ name: "Ada" }), "email is required");
      assertInvalid(() => parse({ name: "Ada", email: "ada@example.com" }), "bvn or nin is required");
      // An invalid earlier field wins over a missing later one.
      assertInvalid(() => parse({ name: 42 }), "name must be a string");
      assertInvalid(() => parse({ name: "Ada", email: "nope" }), "email must be a valid email address");
      assertInvalid(
        () => parse({ name: "Ada", email: "nope", bvn: "1" }),
        "email must be a valid email address",
      );
      assertInvalid(() => parse({ name: "", email: "nope", bvn: "1" }), "name must be a non-empty string");
    });

    test("null counts as not sent", () => {
      assertInvalid(() => parse({ ...valid, name: null }), "name is required");
      assertInvalid(() => parse({ ...valid, email: null }), "email is required");
      assertInvalid(
        () => parse({ name: "Ada", email: "ada@example.com", bvn: null }),
        "bvn or nin is required",
      );
      assertInvalid(
        () => parse({ name: "Ada", email: "ada@example.com", bvn: null, nin: null }),
        "bvn or nin is required",
      );
      // A null bvn does not shadow a valid nin.
      assert.deepEqual(parse({ ...valid, bvn: null, nin: NIN }).identity, { type: "nin", number: NIN });
    });

    test("undefined counts as not sent", () => {
      assertInvalid(() => parse({ ...valid, name: undefined }), "name is required");
    });

    test("inherited properties do not count as sent", () => {
      const body = Object.create({ name: "Ada" }) as Record<string, unknown>;
      body.email = "ada@example.com";
      body.bvn = BVN;
      assertInvalid(() => parse(body), "name is required");
    });
  });

  describe(`${label}: name`, () => {
    for (const value of [42, true, ["Ada"], { first: "Ada" }]) {
      test(`rejects ${JSON.stringify(value)} as not a string`, () => {
        assertInvalid(() => parse({ ...valid, name: value }), "name must be a string");
      });
    }

    for (const value of ["", " ", "   \t  ", "\n", "\u00a0\u3000"]) {
      test(`rejects the empty or blank name ${JSON.stringify(value)}`, () => {
        assertInvalid(() => parse({ ...valid, name: value }), "name must be a non-empty string");
      });
    }

    test("is trimmed and NFC-normalised", () => {
      assert.equal(parse({ ...valid, name: "  Ada Lovelace \t" }).name, "Ada Lovelace");
      assert.equal(parse({ ...valid, name: "Jose\u0301" }).name, "Jos\u00e9");
    });

    for (const value of [
      "Ada\u0000",
      "A\u0007da",
      "Ada\nLovelace",
      "Ada\tLovelace",
      "A\u007fda",
      "A\u0085da",
      "A\u009bda",
      "Ada\u2028Lovelace",
      "Ada\u2029Lovelace",
    ]) {
      test(`rejects control characters: ${JSON.stringify(value)}`, () => {
        assertInvalid(() => parse({ ...valid, name: value }), "name must not contain control characters");
      });
    }

    test(`accepts ${MAX_NAME_LENGTH} characters and rejects ${MAX_NAME_LENGTH + 1}`, () => {
      assert.equal(parse({ ...valid, name: "a".repeat(MAX_NAME_LENGTH) }).name.length, MAX_NAME_LENGTH);
      // Surrounding spaces do not count towards the limit.
      assert.equal(
        parse({ ...valid, name: ` ${"a".repeat(MAX_NAME_LENGTH)} ` }).name.length,
        MAX_NAME_LENGTH,
      );
      assertInvalid(
        () => parse({ ...valid, name: "a".repeat(MAX_NAME_LENGTH + 1) }),
        `name must be at most ${MAX_NAME_LENGTH} characters`,
      );
    });

    test("accepts non-Latin names", () => {
      assert.equal(parse({ ...valid, name: "Ọlábísí Àdìgún" }).name, "Ọlábísí Àdìgún".normalize("NFC"));
    });

    for (const value of NAMES_THAT_NEED_JOINERS) {
      test(`keeps joiners inside a visible name: ${JSON.stringify(value)}`, () => {
        assert.equal(parse({ ...valid, name: value }).name, value);
      });
    }

    for (const value of BIDI_CONTROLS) {
      test(`rejects the bidi control ${codePoints(value)}`, () => {
        assertInvalid(
          () => parse({ ...valid, name: `Ada ${value}ecalevoL` }),
          "name must not contain bidirectional control characters",
        );
      });
    }

    for (const value of INVISIBLE) {
      test(`rejects a name made only of ${codePoints(value)}`, () => {
        assertInvalid(
          () => parse({ ...valid, name: value.repeat(3) }),
          // JavaScript's trim() already removes U+FEFF, leaving nothing at all.
          value === "\ufeff" ? "name must be a non-empty string" : "name must contain a visible character",
        );
        // Mixed with spaces, or with one another, is no better.
        assertInvalid(
          () => parse({ ...valid, name: ` ${value}\u200b${value}\u3000` }),
          "name must contain a visible character",
        );
      });
    }

    for (const value of ["\ud800", "Ada\udfff", "A\udc00\ud83dda", "\ud83d"]) {
      test(`rejects the unpaired surrogate in ${JSON.stringify(value)}`, () => {
        assertInvalid(
          () => parse({ ...valid, name: value }),
          "name must not contain unpaired surrogates (it must be valid Unicode text)",
        );
      });
    }

    test("accepts characters outside the BMP (surrogate pairs)", () => {
      assert.equal(parse({ ...valid, name: "Ada 😀 𝔘" }).name, "Ada 😀 𝔘");
    });

    test("surrogates are judged before trimming, controls before bidi controls before visibility", () => {
      assertInvalid(() => parse({ ...valid, name: " \ud800 " }), /unpaired surrogates/);
      assertInvalid(
        () => parse({ ...valid, name: "\u202e\u0000" }),
        "name must not contain control characters",
      );
      assertInvalid(
        () => parse({ ...valid, name: "\u200b\u202e" }),
        "name must not contain bidirectional control characters",
      );
      assertInvalid(() => parse({ ...valid, name: "\u200b".repeat(MAX_NAME_LENGTH + 1) }), /at most/);
    });
  });

  describe(`${label}: email`, () => {
    test("is trimmed and lower-cased", () => {
      assert.equal(
        parse({ ...valid, email: "  Ada.Lovelace+x@Example.COM \n" }).email,
        "ada.lovelace+x@example.com",
      );
    });

    for (const value of [42, true, ["ada@example.com"], {}]) {
      test(`rejects ${JSON.stringify(value)} as not a string`, () => {
        assertInvalid(() => parse({ ...valid, email: value }), "email must be a string");
      });
    }

    for (const value of [
      "",
      " ",
      "ada",
      "ada@",
      "@example.com",
      "ada@example",
      "ada lovelace@example.com",
      "ada@@example.com",
    ]) {
      test(`rejects ${JSON.stringify(value)}`, () => {
        assertInvalid(() => parse({ ...valid, email: value }), /^email must be/);
      });
    }

    test("rejects a local part over 64 characters (RFC 5321)", () => {
      const local = "a".repeat(64);
      assert.equal(parse({ ...valid, email: `${local}@example.com` }).email, `${local}@example.com`);
      assertInvalid(
        () => parse({ ...valid, email: `${local}b@example.com` }),
        "email must have at most 64 characters before the @",
      );
      // Surrounding spaces are trimmed before counting.
      assert.equal(parse({ ...valid, email: ` ${local}@example.com ` }).email, `${local}@example.com`);
    });

    test("rejects an email longer than 254 characters", () => {
      const domain = `${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`;
      const email = `${"a".repeat(64)}@${domain}`;
      assert.equal(email.length, 255);
      assertInvalid(() => parse({ ...valid, email }), /^email must be/);
      assert.equal(parse({ ...valid, email: email.slice(1) }).email, email.slice(1));
    });
  });

  describe(`${label}: bvn and nin`, () => {
    const base = { name: "Ada", email: "ada@example.com" };

    test("bvn", () => {
      assert.deepEqual(parse({ ...base, bvn: BVN }).identity, { type: "bvn", number: BVN });
    });

    test("nin", () => {
      assert.deepEqual(parse({ ...base, nin: NIN }).identity, { type: "nin", number: NIN });
    });

    test("aliases: BVN, NIN, ninNumber", () => {
      assert.deepEqual(parse({ ...base, BVN }).identity, { type: "bvn", number: BVN });
      assert.deepEqual(parse({ ...base, NIN }).identity, { type: "nin", number: NIN });
      assert.deepEqual(parse({ ...base, ninNumber: NIN }).identity, { type: "nin", number: NIN });
    });

    for (const field of ["bvn", "BVN", "nin", "NIN", "ninNumber"]) {
      for (const value of [
        "1234567890",
        "123456789012",
        "1234567890a",
        "abcdefghijk",
        "",
        " 12345678901",
        "12345678901 ",
        "１２３４５６７８９０１",
        "-1234567890",
      ]) {
        test(`${field}: rejects ${JSON.stringify(value)}`, () => {
          assertInvalid(
            () => parse({ ...base, [field]: value }),
            `${field} must be a string of exactly 11 digits`,
          );
        });
      }
      for (const value of [12345678901, true, ["12345678901"], { number: "12345678901" }]) {
        test(`${field}: rejects the non-string ${JSON.stringify(value)}`, () => {
          assertInvalid(
            () => parse({ ...base, [field]: value }),
            `${field} must be a string of exactly 11 digits`,
          );
        });
      }
    }

    test("when bvn is sent, nin is ignored entirely, valid or not", () => {
      const expected = { type: "bvn", number: BVN };
      assert.deepEqual(parse({ ...base, bvn: BVN, nin: NIN }).identity, expected);
      assert.deepEqual(parse({ ...base, bvn: BVN, nin: "bad" }).identity, expected);
      assert.deepEqual(parse({ ...base, bvn: BVN, nin: 42 }).identity, expected);
      assert.deepEqual(parse({ ...base, bvn: BVN, NIN: "bad" }).identity, expected);
      assert.deepEqual(parse({ ...base, bvn: BVN, ninNumber: "bad" }).identity, expected);
      assert.deepEqual(parse({ ...base, BVN, nin: "bad" }).identity, expected);
    });

    test("an invalid bvn is an error even when a valid nin is sent", () => {
      assertInvalid(
        () => parse({ ...base, bvn: "123", nin: NIN }),
        "bvn must be a string of exactly 11 digits",
      );
      assertInvalid(() => parse({ ...base, BVN: "123", NIN }), "BVN must be a string of exactly 11 digits");
    });

    test("bvn takes precedence over its alias BVN; nin over NIN over ninNumber", () => {
      assert.deepEqual(parse({ ...base, bvn: BVN, BVN: "bad" }).identity, { type: "bvn", number: BVN });
      assertInvalid(() => parse({ ...base, bvn: "bad", BVN }), "bvn must be a string of exactly 11 digits");
      assert.deepEqual(parse({ ...base, nin: NIN, NIN: "bad", ninNumber: "bad" }).identity, {
        type: "nin",
        number: NIN,
      });
      assert.deepEqual(parse({ ...base, NIN, ninNumber: "bad" }).identity, { type: "nin", number: NIN });
    });

    test("identity fields are case-sensitive beyond the listed aliases", () => {
      assertInvalid(() => parse({ ...base, Bvn: BVN }), "bvn or nin is required");
      assertInvalid(() => parse({ ...base, Nin: NIN }), "bvn or nin is required");
      assertInvalid(() => parse({ ...base, nin_number: NIN }), "bvn or nin is required");
    });
  });
}

describe("parseBusinessName: the customer-name rules, named 'business name'", () => {
  test("trims and NFC-normalises", () => {
    assert.equal(parseBusinessName("  Jose\u0301 Stores \t"), "Jos\u00e9 Stores");
  });

  test(`accepts ${MAX_BUSINESS_NAME_LENGTH} characters and rejects ${MAX_BUSINESS_NAME_LENGTH + 1}`, () => {
    assert.equal(parseBusinessName("b".repeat(MAX_BUSINESS_NAME_LENGTH)).length, MAX_BUSINESS_NAME_LENGTH);
    assertInvalid(
      () => parseBusinessName("b".repeat(MAX_BUSINESS_NAME_LENGTH + 1)),
      `business name must be at most ${MAX_BUSINESS_NAME_LENGTH} characters`,
    );
  });

  for (const [value, message] of [
    [42, "business name must be a string"],
    ["", "business name must be a non-empty string"],
    ["   ", "business name must be a non-empty string"],
    ["Acme\u001b[31m Ltd", "business name must not contain control characters"],
    ["Acme\nLtd", "business name must not contain control characters"],
    ["Acme \u202edtL", "business name must not contain bidirectional control characters"],
    ["\u3164\u200b", "business name must contain a visible character"],
    ["Acme\ud800", "business name must not contain unpaired surrogates (it must be valid Unicode text)"],
  ] as const) {
    test(`rejects ${JSON.stringify(value)}`, () => {
      assertInvalid(() => parseBusinessName(value), message);
    });
  }
});

describe("parsePermanentInput", () => {
  test("returns only name, email, identity, the second identity and who may pay in", () => {
    assert.deepEqual(Object.keys(parsePermanentInput({ ...valid, duration: 5, extra: "x" })).sort(), [
      "allowedPayers",
      "email",
      "identity",
      "name",
      "onMismatch",
      "second",
    ]);
  });

  test("keeps a NIN of 11 digits sent beside a BVN as the second identity (issue 46: tier 2)", () => {
    const base = { name: "Ada Obi", email: "ada@example.com" };
    const read = (body: Record<string, unknown>) => parsePermanentInput({ ...base, ...body });
    assert.deepEqual(read({ bvn: "22345678901", nin: "32345678901" }).second, {
      type: "nin",
      number: "32345678901",
    });
    assert.deepEqual(read({ BVN: "22345678901", ninNumber: "32345678901" }).second?.number, "32345678901");
    assert.equal(read({ bvn: "22345678901" }).second, null);
    assert.equal(read({ bvn: "22345678901", nin: "123" }).second, null, "not 11 digits: ignored, as before");
    assert.equal(read({ bvn: "22345678901", nin: 32345678901 }).second, null, "not a string: ignored");
    assert.equal(read({ nin: "32345678901" }).second, null, "a NIN alone is the first identity");
  });

  test("ignores duration entirely, even an invalid one", () => {
    assert.doesNotThrow(permanent({ ...valid, duration: "forever" }));
  });
});

describe("parseTemporaryInput: duration", () => {
  test(`defaults to ${DEFAULT_DURATION_MINUTES} minutes`, () => {
    assert.equal(DEFAULT_DURATION_MINUTES, 40);
    assert.equal(parseTemporaryInput(valid).durationMinutes, 40);
  });

  test("null counts as not sent", () => {
    assert.equal(parseTemporaryInput({ ...valid, duration: null }).durationMinutes, 40);
  });

  for (const minutes of [1, 40, 60, 10_080]) {
    test(`accepts ${minutes}`, () => {
      assert.equal(parseTemporaryInput({ ...valid, duration: minutes }).durationMinutes, minutes);
    });
  }

  test("accepts a whole number written with a fraction part (2.0 is 2 in JSON)", () => {
    assert.equal(parseTemporaryInput({ ...valid, duration: 2.0 }).durationMinutes, 2);
  });

  for (const minutes of [0, -1, 10_081, 1_000_000]) {
    test(`rejects ${minutes} as out of range`, () => {
      assertInvalid(
        temporary({ ...valid, duration: minutes }),
        "duration must be between 1 and 10080 minutes",
      );
    });
  }

  for (const value of [
    1.5,
    0.5,
    "40",
    "",
    true,
    false,
    [40],
    { minutes: 40 },
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ]) {
    test(`rejects ${String(value)} (${typeof value}) as not a whole number`, () => {
      assertInvalid(temporary({ ...valid, duration: value }), /^duration must be/);
    });
  }

  test("string and fractional durations say 'whole number of minutes'", () => {
    assertInvalid(temporary({ ...valid, duration: "40" }), "duration must be a whole number of minutes");
    assertInvalid(temporary({ ...valid, duration: 1.5 }), "duration must be a whole number of minutes");
    assertInvalid(temporary({ ...valid, duration: true }), "duration must be a whole number of minutes");
  });

  test("duration is checked after name, email and identity", () => {
    assertInvalid(temporary({ duration: 0 }), "name is required");
    assertInvalid(
      temporary({ name: "Ada", email: "ada@example.com", duration: 0 }),
      "bvn or nin is required",
    );
    assertInvalid(
      temporary({ ...valid, bvn: "1", duration: 0 }),
      "bvn must be a string of exactly 11 digits",
    );
  });
});

describe("parseListQuery", () => {
  test("defaults to page 1, limit 10", () => {
    assert.deepEqual(parseListQuery({}), { page: 1, limit: 10 });
    assert.deepEqual(parseListQuery({ page: undefined, limit: undefined }), { page: 1, limit: 10 });
  });

  test("reads page and limit", () => {
    assert.deepEqual(parseListQuery({ page: "3", limit: "25" }), { page: 3, limit: 25 });
  });

  test("accepts limit 1 and 100", () => {
    assert.equal(parseListQuery({ limit: "1" }).limit, 1);
    assert.equal(parseListQuery({ limit: "100" }).limit, 100);
  });

  test("accepts a large page", () => {
    assert.equal(parseListQuery({ page: "1000000" }).page, 1_000_000);
    assert.equal(parseListQuery({ page: "999999999999999" }).page, 999_999_999_999_999);
  });

  test("ignores other parameters", () => {
    assert.deepEqual(parseListQuery({ sort: "desc", q: "x" }), { page: 1, limit: 10 });
  });

  for (const value of ["0", "00", "-1", "1.5", "abc", "", " 1", "1 ", "1e3", "0x10", "+1", "-0"]) {
    test(`rejects page ${JSON.stringify(value)}`, () => {
      assertInvalid(() => parseListQuery({ page: value }), "page must be a whole number of at least 1");
    });
  }

  for (const value of [1, null, true, { n: "1" }]) {
    test(`rejects page given as ${JSON.stringify(value)} (not a string)`, () => {
      assertInvalid(() => parseListQuery({ page: value }), "page must be a whole number of at least 1");
    });
  }

  // A repeated query parameter reaches the parser as an array.
  for (const value of [["1", "2"], ["1", "1"], ["1"], []]) {
    test(`rejects page given as ${JSON.stringify(value)}: it must be given once`, () => {
      assertInvalid(() => parseListQuery({ page: value }), "page must be given once");
    });
  }

  test("accepts the largest safe page, with or without leading zeros", () => {
    assert.equal(parseListQuery({ page: "9007199254740991" }).page, Number.MAX_SAFE_INTEGER);
    assert.equal(parseListQuery({ page: "0009007199254740991" }).page, Number.MAX_SAFE_INTEGER);
    assert.equal(parseListQuery({ page: `${"0".repeat(30)}7` }).page, 7);
  });

  // Past 2^53 - 1 a page number cannot be represented exactly: refused, saying the limit.
  for (const value of ["9007199254740992", "9999999999999999", "10000000000000000", "9".repeat(40)]) {
    test(`rejects page ${value.length > 20 ? `of ${value.length} nines` : value}: too large`, () => {
      assertInvalid(() => parseListQuery({ page: value }), "page must be at most 9007199254740991");
    });
  }

  test("limit given twice is refused as such", () => {
    assertInvalid(() => parseListQuery({ limit: ["10", "20"] }), "limit must be given once");
  });

  test("page given twice is reported before a bad limit", () => {
    assertInvalid(() => parseListQuery({ page: ["1", "2"], limit: "0" }), "page must be given once");
  });

  for (const value of ["0", "101", "1000", "-1", "1.5", "abc", "", "9".repeat(20)]) {
    test(`rejects limit ${JSON.stringify(value)}`, () => {
      assertInvalid(() => parseListQuery({ limit: value }), "limit must be a whole number from 1 to 100");
    });
  }

  test("page is checked before limit", () => {
    assertInvalid(
      () => parseListQuery({ page: "0", limit: "0" }),
      "page must be a whole number of at least 1",
    );
  });
});
