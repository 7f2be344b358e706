import { createHmac } from "node:crypto";

const ROUNDS = 8;

/**
 * Round outputs are remembered when a half has at most this many bits: 8 rounds of 2^16 halves
 * are 2 MiB at most (1 MiB for the serial space of 10^9, whose halves have 15 bits), and an
 * opening then costs table reads instead of about nine HMACs (issue 29's profile).
 */
const MAX_REMEMBERED_HALF_BITS = 16;

/**
 * A keyed permutation of [0, domainSize): a balanced Feistel network over the smallest even
 * number of bits that covers the domain, with HMAC-SHA256 as round function, and cycle-walking
 * back into the domain. Distinct inputs give distinct outputs (it is a bijection), and without
 * the key, one output says nothing useful about the next.
 */
export class SerialPermutation {
  private readonly halfBits: number;
  private readonly halfMask: number;
  /** Each round's output for each half, plus one (0: not yet computed); when halves are small enough. */
  private remembered: Uint32Array | undefined;

  constructor(
    private readonly key: Buffer,
    readonly domainSize: number,
  ) {
    if (key.length < 16) throw new RangeError("permutation key must be at least 16 bytes");
    if (!Number.isSafeInteger(domainSize) || domainSize < 4 || domainSize > 2 ** 48) {
      throw new RangeError("domain size must be an integer between 4 and 2^48");
    }
    const bits = Math.ceil(Math.log2(domainSize));
    this.halfBits = Math.ceil(bits / 2);
    this.halfMask = 2 ** this.halfBits - 1;
  }

  /** The image of `value`; throws on values outside the domain. */
  apply(value: number): number {
    if (!Number.isSafeInteger(value) || value < 0 || value >= this.domainSize) {
      throw new RangeError(`value must be an integer in [0, ${this.domainSize})`);
    }
    let x = value;
    do {
      x = this.feistel(x);
    } while (x >= this.domainSize);
    return x;
  }

  private feistel(value: number): number {
    const scale = 2 ** this.halfBits;
    let left = Math.floor(value / scale);
    let right = value % scale;
    for (let round = 0; round < ROUNDS; round++) {
      const next = left ^ this.round(round, right);
      left = right;
      right = next;
    }
    return left * scale + right;
  }

  /** The round function, masked to a half: HMAC-SHA256 of (round, half) under the key, computed once each. */
  private round(round: number, half: number): number {
    if (this.halfBits > MAX_REMEMBERED_HALF_BITS) return this.hmac(round, half) & this.halfMask;
    this.remembered ??= new Uint32Array(ROUNDS * 2 ** this.halfBits);
    const slot = round * 2 ** this.halfBits + half;
    const known = this.remembered[slot] as number;
    if (known !== 0) return known - 1;
    const value = this.hmac(round, half) & this.halfMask;
    this.remembered[slot] = value + 1;
    return value;
  }

  private hmac(round: number, half: number): number {
    const input = Buffer.alloc(8);
    input.writeUInt32BE(round, 0);
    input.writeUInt32BE(half, 4);
    const digest = createHmac("sha256", this.key).update(input).digest();
    return digest.readUInt32BE(0);
  }
}
