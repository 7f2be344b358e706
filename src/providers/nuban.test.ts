import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isValidNuban, nubanCheckDigit, nubanFromSerial, SERIAL_SPACE } from "./nuban.js";

// Known-good numbers: the CBN's own worked examples (First Bank 011, GTBank 058). With the
// 2020 weights, a 3-digit bank code padded to 6 digits puts the code under weights 3,7,3,
// exactly as the original 3-digit algorithm did, so these numbers are still valid.
const CBN_EXAMPLES = [
  { code: "011", serial: "000001457", nuban: "0000014579" },
  { code: "011", serial: "000000022", nuban: "0000000220" },
  { code: "058", serial: "001656322", nuban: "0016563228" },
] as const;

// Worked by hand for a 6-digit institution code, 999240 (the service's default):
//   code   9 9 9 2 4 0  x 3 7 3 3 7 3        = 27+63+27+6+28+0        = 151
//   serial 1 2 3 4 5 6 7 8 9 x 3 7 3 3 7 3 3 7 3 = 3+14+9+12+35+18+21+56+27 = 195
//   sum 346, 346 mod 10 = 6, check = (10 - 6) mod 10 = 4  ->  1234567894
// and for 090267 with serial 000000001:
//   code   0 9 0 2 6 7  x 3 7 3 3 7 3        = 0+63+0+6+42+21         = 132
//   serial ...1 x 3                           = 3
//   sum 135, check = (10 - 5) mod 10 = 5      ->  0000000015
const HAND_EXAMPLES = [
  { code: "999240", serial: "123456789", nuban: "1234567894" },
  { code: "999240", serial: "000000000", nuban: "0000000009" }, // 151 -> 9
  { code: "090267", serial: "000000001", nuban: "0000000015" },
] as const;

describe("nubanCheckDigit", () => {
  for (const { code, serial, nuban } of [...CBN_EXAMPLES, ...HAND_EXAMPLES]) {
    test(`${code} / ${serial} -> ${nuban.at(-1)}`, () => {
      assert.equal(nubanCheckDigit(code, serial), Number(nuban.at(-1)));
    });
  }

  test("a 3-digit code and its zero-padded 6-digit form give the same check digit", () => {
    for (const code of ["011", "058", "044", "033", "999"]) {
      for (const serial of ["000001457", "000000022", "001656322", "987654321", "000000000"]) {
        assert.equal(
          nubanCheckDigit(code, serial),
          nubanCheckDigit(`000${code}`, serial),
          `${code}/${serial}`,
        );
      }
    }
  });

  test("the first three digits of a 6-digit code count", () => {
    // 100011 adds 1 x 3 to the sum of 000011, which moves the check digit.
    assert.equal(nubanCheckDigit("000011", "000001457"), 9);
    assert.equal(nubanCheckDigit("100011", "000001457"), 6);
  });

  test("rejects institution codes that are not 3 or 6 digits", () => {
    for (const code of ["", "1", "11", "0011", "00011", "0000011", "abc", "01a", "999 40"]) {
      assert.throws(() => nubanCheckDigit(code, "000000001"), RangeError, code);
    }
  });

  test("rejects serials that are not 9 digits", () => {
    for (const serial of ["", "00000001", "0000000001", "00000000a", "-00000001", " 00000001"]) {
      assert.throws(() => nubanCheckDigit("011", serial), RangeError, serial);
    }
  });
});

describe("nubanFromSerial", () => {
  for (const { code, serial, nuban } of [...CBN_EXAMPLES, ...HAND_EXAMPLES]) {
    test(`${code} serial ${Number(serial)} -> ${nuban}`, () => {
      assert.equal(nubanFromSerial(code, Number(serial)), nuban);
    });
  }

  test("pads the serial to 9 digits and the result to 10", () => {
    assert.equal(nubanFromSerial("011", 0), "0000000000"); // 000011: 7+3 = 10 -> 0
    assert.equal(nubanFromSerial("011", SERIAL_SPACE - 1).slice(0, 9), "999999999");
    assert.match(nubanFromSerial("999240", 42), /^000000042\d$/);
  });

  test("the serial space is 10^9", () => {
    assert.equal(SERIAL_SPACE, 1_000_000_000);
  });

  test("rejects serials outside [0, 10^9) and non-integers", () => {
    for (const serial of [-1, SERIAL_SPACE, SERIAL_SPACE + 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => nubanFromSerial("011", serial), RangeError, String(serial));
    }
  });

  test("every number it produces is valid", () => {
    for (let serial = 0; serial < 2000; serial += 7) {
      assert.equal(isValidNuban("999240", nubanFromSerial("999240", serial)), true);
    }
  });
});

describe("isValidNuban", () => {
  for (const { code, nuban } of [...CBN_EXAMPLES, ...HAND_EXAMPLES]) {
    test(`accepts ${code} / ${nuban}`, () => {
      assert.equal(isValidNuban(code, nuban), true);
    });
  }

  test("accepts a 3-digit bank's number under the padded 6-digit code", () => {
    assert.equal(isValidNuban("000011", "0000014579"), true);
    assert.equal(isValidNuban("000058", "0016563228"), true);
  });

  test("rejects every other check digit", () => {
    for (const { code, nuban } of [...CBN_EXAMPLES, ...HAND_EXAMPLES]) {
      for (let digit = 0; digit <= 9; digit++) {
        if (String(digit) === nuban.at(-1)) continue;
        const changed = `${nuban.slice(0, 9)}${digit}`;
        assert.equal(isValidNuban(code, changed), false, `${code} / ${changed}`);
      }
    }
  });

  test("rejects any single-digit change in the serial (weights 3 and 7 are prime to 10)", () => {
    for (const { code, nuban } of [...CBN_EXAMPLES, ...HAND_EXAMPLES]) {
      for (let position = 0; position < 9; position++) {
        for (let digit = 0; digit <= 9; digit++) {
          if (String(digit) === nuban[position]) continue;
          const changed = `${nuban.slice(0, position)}${digit}${nuban.slice(position + 1)}`;
          assert.equal(isValidNuban(code, changed), false, `${code} / ${changed}`);
        }
      }
    }
  });

  test("a number is valid only at its own institution", () => {
    assert.equal(isValidNuban("058", "0000014579"), false);
    assert.equal(isValidNuban("999240", "0000014579"), false);
  });

  test("rejects anything but exactly 10 ASCII digits", () => {
    for (const text of [
      "",
      "000001457",
      "00000145790",
      "000001457a",
      " 0000014579",
      "0000014579 ",
      "0000-14579",
      "+000014579",
      "0000014579\n",
      "０００００１４５７９", // full-width digits
    ]) {
      assert.equal(isValidNuban("011", text), false, JSON.stringify(text));
    }
  });
});
