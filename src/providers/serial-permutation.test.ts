import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SERIAL_SPACE } from "./nuban.js";
import { SerialPermutation } from "./serial-permutation.js";

const KEY = Buffer.from("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "hex");
const OTHER_KEY = Buffer.from("ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100", "hex");

/** Every image of the domain, in input order. */
function images(permutation: SerialPermutation): number[] {
  const out: number[] = [];
  for (let value = 0; value < permutation.domainSize; value++) out.push(permutation.apply(value));
  return out;
}

function assertBijection(domainSize: number, key = KEY) {
  const outputs = images(new SerialPermutation(key, domainSize));
  for (const output of outputs) {
    assert.ok(Number.isInteger(output) && output >= 0 && output < domainSize, `${output} out of range`);
  }
  assert.equal(new Set(outputs).size, domainSize, "outputs are not distinct");
  return outputs;
}

describe("SerialPermutation", () => {
  // 4096 = 2^12: an even number of bits, so the Feistel network covers it exactly.
  // 10_000, 1_000, 2048 (11 bits, odd) and 5 do not: values that land outside are walked back in.
  for (const domainSize of [4096, 10_000, 1_000, 2048, 5, 4]) {
    test(`is a bijection on [0, ${domainSize})`, () => {
      assertBijection(domainSize);
    });
  }

  test("is a bijection under another key too", () => {
    assertBijection(10_000, OTHER_KEY);
  });

  test("is not the identity, nor close to it, on a small domain", () => {
    const outputs = assertBijection(10_000);
    const fixed = outputs.filter((output, input) => output === input).length;
    assert.ok(fixed < 20, `${fixed} fixed points`);
  });

  test("is deterministic for the same key (a fresh instance, a copy of the key)", () => {
    const a = images(new SerialPermutation(KEY, 1_000));
    const b = images(new SerialPermutation(Buffer.from(KEY), 1_000));
    assert.deepEqual(a, b);
    const real1 = new SerialPermutation(KEY, SERIAL_SPACE);
    const real2 = new SerialPermutation(Buffer.from(KEY), SERIAL_SPACE);
    for (const value of [0, 1, 2, 123_456_789, SERIAL_SPACE - 1]) {
      assert.equal(real1.apply(value), real2.apply(value));
    }
  });

  test("known answers: the numbers already issued never change (HMAC-SHA256 rounds, remembered or not)", () => {
    const real = new SerialPermutation(KEY, SERIAL_SPACE);
    const inputs = [0, 1, 2, 123_456_789, SERIAL_SPACE - 1];
    const expected = [736196115, 889557900, 260164821, 704601566, 673937032];
    assert.deepEqual(
      inputs.map((v) => real.apply(v)),
      expected,
      "first computed",
    );
    assert.deepEqual(
      inputs.map((v) => real.apply(v)),
      expected,
      "then remembered",
    );
    // Halves of 20 bits are computed every time, never remembered.
    const wide = new SerialPermutation(KEY, 2 ** 40);
    assert.deepEqual(
      [0, 1, 2 ** 40 - 1].map((v) => wide.apply(v)),
      [1064880980824, 445253862482, 546342740862],
    );
  });

  test("different keys give different permutations", () => {
    const a = images(new SerialPermutation(KEY, 10_000));
    const b = images(new SerialPermutation(OTHER_KEY, 10_000));
    assert.notDeepEqual(a, b);
    const same = a.filter((output, input) => output === b[input]).length;
    assert.ok(same < 100, `${same} of 10000 images agree`);
    // A key differing in a single bit is a different permutation as well.
    const flipped = Buffer.from(KEY);
    flipped[0] = (flipped[0] as number) ^ 1;
    assert.notDeepEqual(images(new SerialPermutation(flipped, 10_000)), a);
  });

  describe("over the real serial space (10^9)", () => {
    const permutation = new SerialPermutation(KEY, SERIAL_SPACE);
    const outputs = Array.from({ length: 1000 }, (_, input) => permutation.apply(input));

    test("consecutive inputs give distinct outputs in range", () => {
      assert.equal(new Set(outputs).size, outputs.length);
      for (const output of outputs)
        assert.ok(Number.isInteger(output) && output >= 0 && output < SERIAL_SPACE);
    });

    test("outputs are neither consecutive nor monotonic", () => {
      let adjacent = 0;
      let increasing = 0;
      for (let i = 1; i < outputs.length; i++) {
        const previous = outputs[i - 1] as number;
        const current = outputs[i] as number;
        if (Math.abs(current - previous) === 1) adjacent++;
        if (current > previous) increasing++;
      }
      assert.ok(adjacent < 10, `${adjacent} of 999 consecutive pairs differ by 1`);
      // A random sequence rises about half the time; a counter or a shifted counter always does.
      assert.ok(increasing > 300 && increasing < 700, `${increasing} of 999 pairs increase`);
    });

    test("outputs spread over the whole space, not clustered near the inputs", () => {
      const small = outputs.filter((output) => output < 1_000_000).length;
      assert.ok(small < 10, `${small} outputs below 10^6`);
      const upperHalf = outputs.filter((output) => output >= SERIAL_SPACE / 2).length;
      assert.ok(upperHalf > 400 && upperHalf < 600, `${upperHalf} outputs in the upper half`);
    });

    test("accepts the last value of the domain", () => {
      const last = permutation.apply(SERIAL_SPACE - 1);
      assert.ok(last >= 0 && last < SERIAL_SPACE);
      assert.ok(!outputs.includes(last));
    });
  });

  test("rejects values outside the domain", () => {
    const permutation = new SerialPermutation(KEY, 1_000);
    for (const value of [-1, 1_000, 1_001, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      assert.throws(() => permutation.apply(value), RangeError, String(value));
    }
  });

  test("rejects keys shorter than 16 bytes; 16 bytes is enough", () => {
    assert.throws(() => new SerialPermutation(Buffer.alloc(0), 1_000), RangeError);
    assert.throws(() => new SerialPermutation(Buffer.alloc(15, 1), 1_000), RangeError);
    assert.doesNotThrow(() => new SerialPermutation(Buffer.alloc(16, 1), 1_000));
  });

  test("rejects domain sizes below 4, above 2^48 or not whole", () => {
    for (const size of [0, 1, 3, -10, 1000.5, 2 ** 48 + 1, Number.NaN]) {
      assert.throws(() => new SerialPermutation(KEY, size), RangeError, String(size));
    }
    assert.doesNotThrow(() => new SerialPermutation(KEY, 2 ** 48));
  });
});
