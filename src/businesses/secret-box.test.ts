import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { masterKeyId, SecretBox, SecretBoxError } from "./secret-box.js";

const KEY = Buffer.alloc(32, 0x11);
const OLD_KEY = Buffer.alloc(32, 0x22);
const OTHER_KEY = Buffer.alloc(32, 0x33);
const SECRET = "vsk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";
const CONTEXT = "api_keys:7b4c0e7e-3d7e-4bd8-9d61-5c1d1e9b7a10";

/** Replaces one character of a base64url field with another valid one. */
function flipChar(text: string, index: number): string {
  const c = text[index];
  return `${text.slice(0, index)}${c === "A" ? "B" : "A"}${text.slice(index + 1)}`;
}

function withPart(sealed: string, part: number, change: (text: string) => string): string {
  const parts = sealed.split(".");
  parts[part] = change(parts[part] as string);
  return parts.join(".");
}

describe("SecretBox", () => {
  test("opens what it sealed", () => {
    const box = new SecretBox(KEY);
    assert.equal(box.open(box.seal(SECRET, CONTEXT), CONTEXT), SECRET);
  });

  test("round-trips the empty string, non-ASCII text and long text", () => {
    const box = new SecretBox(KEY);
    for (const text of ["", "Ọlá 🔑 ñ", "x".repeat(10_000)]) {
      assert.equal(box.open(box.seal(text, CONTEXT), CONTEXT), text);
    }
  });

  test("another box with the same master key opens it", () => {
    const sealed = new SecretBox(KEY).seal(SECRET, CONTEXT);
    assert.equal(new SecretBox(Buffer.from(KEY)).open(sealed, CONTEXT), SECRET);
  });

  test("has the documented format: v1.<key id>.<iv>.<tag>.<ciphertext>", () => {
    const sealed = new SecretBox(KEY).seal(SECRET, CONTEXT);
    const parts = sealed.split(".");
    assert.equal(parts.length, 5);
    assert.equal(parts[0], "v1");
    assert.equal(parts[1], masterKeyId(KEY));
    assert.equal(Buffer.from(parts[2] as string, "base64url").length, 12);
    assert.equal(Buffer.from(parts[3] as string, "base64url").length, 16);
    assert.equal(Buffer.from(parts[4] as string, "base64url").length, Buffer.byteLength(SECRET));
    for (const part of parts) assert.match(part, /^[A-Za-z0-9_-]+$/);
  });

  test("the plaintext does not appear in the sealed string, in any encoding", () => {
    const sealed = new SecretBox(KEY).seal(SECRET, CONTEXT);
    assert.ok(!sealed.includes(SECRET));
    assert.ok(!sealed.includes(SECRET.slice(4, 20)));
    assert.ok(!sealed.includes(Buffer.from(SECRET).toString("base64url").slice(0, 16)));
    assert.ok(!sealed.includes(Buffer.from(SECRET).toString("hex").slice(0, 16)));
  });

  test("sealing the same plaintext twice gives different ciphertexts (random IV)", () => {
    const box = new SecretBox(KEY);
    const a = box.seal(SECRET, CONTEXT);
    const b = box.seal(SECRET, CONTEXT);
    assert.notEqual(a, b);
    assert.notEqual(a.split(".")[2], b.split(".")[2]);
    assert.notEqual(a.split(".")[4], b.split(".")[4]);
    assert.equal(box.open(a, CONTEXT), box.open(b, CONTEXT));
  });

  test("a ciphertext is bound to its context", () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal(SECRET, CONTEXT);
    for (const other of ["api_keys:another-row", `${CONTEXT} `, CONTEXT.toUpperCase(), ""]) {
      assert.throws(() => box.open(sealed, other), SecretBoxError, JSON.stringify(other));
    }
    // The empty context is a context like any other.
    const unbound = box.seal(SECRET, "");
    assert.equal(box.open(unbound, ""), SECRET);
    assert.throws(() => box.open(unbound, CONTEXT), SecretBoxError);
  });

  test("tampering with the IV, the tag or the ciphertext throws", () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal(SECRET, CONTEXT);
    for (const part of [2, 3, 4]) {
      const length = (sealed.split(".")[part] as string).length;
      for (const index of [0, Math.floor(length / 2), length - 2]) {
        const tampered = withPart(sealed, part, (text) => flipChar(text, index));
        assert.notEqual(tampered, sealed);
        assert.throws(() => box.open(tampered, CONTEXT), SecretBoxError, `part ${part} index ${index}`);
      }
    }
  });

  test("every single-byte change to the ciphertext body throws", () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal(SECRET, CONTEXT);
    const body = Buffer.from(sealed.split(".")[4] as string, "base64url");
    for (let i = 0; i < body.length; i++) {
      const changed = Buffer.from(body);
      changed[i] = (changed[i] as number) ^ 0x01;
      const tampered = withPart(sealed, 4, () => changed.toString("base64url"));
      assert.throws(() => box.open(tampered, CONTEXT), SecretBoxError, `byte ${i}`);
    }
  });

  test("a truncated tag or a swapped ciphertext throws", () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal(SECRET, CONTEXT);
    const other = box.seal("vsk_another_secret_of_some_length_0000000000000", CONTEXT);
    assert.throws(
      () =>
        box.open(
          withPart(sealed, 3, (tag) => tag.slice(0, 8)),
          CONTEXT,
        ),
      SecretBoxError,
    );
    assert.throws(
      () =>
        box.open(
          withPart(sealed, 4, () => other.split(".")[4] as string),
          CONTEXT,
        ),
      SecretBoxError,
    );
  });

  test("malformed ciphertexts throw SecretBoxError", () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal(SECRET, CONTEXT);
    const [, id, iv, tag, body] = sealed.split(".");
    for (const bad of [
      "",
      "garbage",
      `v2.${id}.${iv}.${tag}.${body}`,
      `v1.${id}.${iv}.${tag}`,
      `v1.${id}.${iv}.${tag}.${body}.extra`,
      `v1..${iv}.${tag}.${body}`,
      `v1.${id}..${tag}.${body}`,
      `v1.${id}.${iv}..${body}`,
    ]) {
      assert.throws(() => box.open(bad, CONTEXT), SecretBoxError, bad);
    }
  });

  test("a different master key cannot open it", () => {
    const sealed = new SecretBox(KEY).seal(SECRET, CONTEXT);
    assert.throws(() => new SecretBox(OTHER_KEY).open(sealed, CONTEXT), SecretBoxError);
    // Even when the key id is rewritten to the other key's, authentication fails.
    const relabelled = withPart(sealed, 1, () => masterKeyId(OTHER_KEY));
    assert.throws(() => new SecretBox(OTHER_KEY).open(relabelled, CONTEXT), SecretBoxError);
  });

  test("rejects master keys that are not 32 bytes", () => {
    for (const length of [0, 16, 31, 33, 64]) {
      assert.throws(() => new SecretBox(Buffer.alloc(length, 1)), SecretBoxError, String(length));
      assert.throws(() => new SecretBox(KEY, [Buffer.alloc(length, 1)]), SecretBoxError, String(length));
    }
  });

  describe("rotation", () => {
    test("a box with (new key, [old key]) opens old ciphertexts and seals with the new key", () => {
      const old = new SecretBox(OLD_KEY);
      const oldSealed = old.seal(SECRET, CONTEXT);
      const rotating = new SecretBox(KEY, [OLD_KEY]);
      assert.equal(rotating.open(oldSealed, CONTEXT), SECRET);
      assert.equal(rotating.isCurrent(oldSealed), false);

      const resealed = rotating.seal(SECRET, CONTEXT);
      assert.equal(rotating.isCurrent(resealed), true);
      assert.equal(resealed.split(".")[1], masterKeyId(KEY));
      assert.equal(new SecretBox(KEY).open(resealed, CONTEXT), SECRET);
      // The old key alone cannot open what the new key sealed.
      assert.throws(() => old.open(resealed, CONTEXT), SecretBoxError);
    });

    test("context binding still holds for old ciphertexts", () => {
      const oldSealed = new SecretBox(OLD_KEY).seal(SECRET, CONTEXT);
      assert.throws(() => new SecretBox(KEY, [OLD_KEY]).open(oldSealed, "api_keys:other"), SecretBoxError);
    });

    test("without the old key, old ciphertexts fail", () => {
      const oldSealed = new SecretBox(OLD_KEY).seal(SECRET, CONTEXT);
      assert.throws(() => new SecretBox(KEY, [OTHER_KEY]).open(oldSealed, CONTEXT), SecretBoxError);
    });

    test("isCurrent is true for the box's own ciphertexts", () => {
      const box = new SecretBox(KEY);
      assert.equal(box.isCurrent(box.seal(SECRET, CONTEXT)), true);
      assert.equal(box.isCurrent(new SecretBox(OTHER_KEY).seal(SECRET, CONTEXT)), false);
    });
  });

  test("masterKeyId is short, stable and differs between keys", () => {
    assert.match(masterKeyId(KEY), /^[0-9a-f]{12}$/);
    assert.equal(masterKeyId(KEY), masterKeyId(Buffer.from(KEY)));
    assert.notEqual(masterKeyId(KEY), masterKeyId(OTHER_KEY));
    // It identifies the key without revealing it.
    assert.ok(!KEY.toString("hex").includes(masterKeyId(KEY)));
  });
});
