import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import {
  canonicalString,
  isFreshMessage,
  rsaPrivateKey,
  rsaPublicKey,
  SIGNED_MESSAGE_WINDOW_MS,
  signParams,
  verifyParams,
} from "./bank-signing.js";

const pair = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
});
const privateKey = rsaPrivateKey(pair.privateKey, "the test key");
const publicKey = rsaPublicKey(pair.publicKey, "the test key");

const request = {
  requestTime: 1_795_500_000_000,
  version: "V1.1",
  nonceStr: "9f2c4e7a1b",
  identityType: "personal",
  licenseNumber: "22345678901",
  virtualAccountName: "Kola Foods/Ada Obi",
  customerName: "Ada Obi",
  email: "ada@example.com",
  accountReference: "ref-0001",
};

describe("the bank protocol's canonical string", () => {
  test("sorted by name, empty and absent values left out, objects as JSON, sign never signed", () => {
    assert.equal(
      canonicalString({
        version: "V1.1",
        requestTime: 1_700_000_000_000,
        nonceStr: "abc",
        accountReference: "ref-1",
        email: "",
        remark: null,
        extra: undefined,
        customerName: "Ada Obi",
        payer: { name: "Chinedu", bank: "Example" },
        enabled: false,
        Zeta: "upper case sorts first",
        sign: "not part of it",
      }),
      "Zeta=upper%20case%20sorts%20first&accountReference=ref-1&customerName=Ada%20Obi&enabled=false&nonceStr=abc&payer=%7B%22name%22%3A%22Chinedu%22%2C%22bank%22%3A%22Example%22%7D&requestTime=1700000000000&version=V1.1",
    );
  });

  test("values are percent-encoded: a narration holding '&name=value' cannot pass for other parameters", () => {
    // Unencoded, both would read "narration=x&orderAmount=99&orderNo=B&orderNo=A".
    const honest = { narration: "x&orderAmount=99&orderNo=B", orderNo: "A" };
    const forged = { narration: "x", orderAmount: 99, orderNo: "B&orderNo=A" };
    assert.notEqual(canonicalString(honest), canonicalString(forged));
    assert.equal(canonicalString(honest), "narration=x%26orderAmount%3D99%26orderNo%3DB&orderNo=A");
    assert.equal(
      canonicalString({ name: "Ọlá Àdé" }),
      "name=%E1%BB%8Cl%C3%A1%20%C3%80d%C3%A9",
      "UTF-8 bytes",
    );
  });

  test("the same parameters in any order make the same string", () => {
    const reversed = Object.fromEntries(Object.entries(request).reverse());
    assert.equal(canonicalString(reversed), canonicalString(request));
  });
});

describe("signing and verifying", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-bank-signing-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a signature verifies; any change to a value, or another key, does not", () => {
    const signature = signParams(request, privateKey);
    assert.equal(verifyParams(request, signature, publicKey), true);
    assert.equal(verifyParams({ ...request, accountReference: "ref-0002" }, signature, publicKey), false);
    assert.equal(
      verifyParams({ ...request, requestTime: request.requestTime + 1 }, signature, publicKey),
      false,
    );
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
    assert.equal(verifyParams(request, signature, other.publicKey), false);
    for (const bad of [undefined, "", "not base64 at all!", 42, "A".repeat(3000)]) {
      assert.equal(verifyParams(request, bad, publicKey), false, String(bad).slice(0, 20));
    }
  });

  test("OpenSSL agrees: it verifies our signature, and we verify its", () => {
    const message = path.join(dir, "message.txt");
    const publicPem = path.join(dir, "public.pem");
    const privatePem = path.join(dir, "private.pem");
    const signatureFile = path.join(dir, "signature.bin");
    writeFileSync(message, canonicalString(request));
    writeFileSync(publicPem, pair.publicKey);
    writeFileSync(privatePem, pair.privateKey);

    writeFileSync(signatureFile, Buffer.from(signParams(request, privateKey), "base64"));
    const verified = execFileSync("openssl", [
      "dgst",
      "-sha256",
      "-verify",
      publicPem,
      "-signature",
      signatureFile,
      message,
    ]).toString();
    assert.match(verified, /Verified OK/);

    const theirs = execFileSync("openssl", ["dgst", "-sha256", "-sign", privatePem, message]);
    assert.equal(verifyParams(request, theirs.toString("base64"), publicKey), true);
  });
});

describe("freshness", () => {
  const now = 1_795_500_000_000;
  test(`requestTime within ${SIGNED_MESSAGE_WINDOW_MS / 60_000} minutes either way, to the millisecond`, () => {
    assert.equal(isFreshMessage(now - SIGNED_MESSAGE_WINDOW_MS, now), true);
    assert.equal(isFreshMessage(now + SIGNED_MESSAGE_WINDOW_MS, now), true);
    assert.equal(isFreshMessage(now - SIGNED_MESSAGE_WINDOW_MS - 1, now), false);
    assert.equal(isFreshMessage(now + SIGNED_MESSAGE_WINDOW_MS + 1, now), false);
    assert.equal(isFreshMessage(String(now), now), true, "digits as text");
    for (const bad of [now + 0.5, "1e12", "", null, undefined, Number.NaN, `${now}x`]) {
      assert.equal(isFreshMessage(bad, now), false, String(bad));
    }
  });
});

describe("keys from configuration", () => {
  test("a key that is not PEM, or not RSA, is refused with what it is", () => {
    assert.throws(
      () => rsaPrivateKey("not a key", "BANK_PRIVATE_KEY_FILE"),
      /BANK_PRIVATE_KEY_FILE is not a PEM key/,
    );
    const ec = generateKeyPairSync("ec", {
      namedCurve: "P-256",
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    assert.throws(
      () => rsaPrivateKey(ec.privateKey, "BANK_PRIVATE_KEY_FILE"),
      /holds an EC key; the protocol signs with RSA/,
    );
    assert.throws(
      () => rsaPublicKey(ec.publicKey, "BANK_PUBLIC_KEY_FILE"),
      /holds an EC key; the protocol signs with RSA/,
    );
    assert.equal(rsaPublicKey(pair.privateKey, "a private key's public half").asymmetricKeyType, "rsa");
  });
});
