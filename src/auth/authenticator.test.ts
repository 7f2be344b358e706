import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { testConfig } from "../../test/helpers/harness.js";
import { secretKeyOpener } from "../businesses/api-keys.js";
import { openServices, type Services } from "../compose/services.js";
import { CLI } from "../core/actor.js";
import { Authenticator, EPOCH_CHECK_MS, type SignedContent, type SigningHeaders } from "./authenticator.js";
import { sign, signRequestV2 } from "./signature.js";

let dir: string;
let services: Services;
let clock = Date.parse("2026-11-21T12:00:00.000Z");

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "vas-auth-"));
  services = await openServices(
    testConfig({ dialect: "sqlite", file: path.join(dir, "vas.db") }, randomBytes(32)),
    { now: () => clock },
  );
});
after(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

function headers(apiKey: string, secretKey: string) {
  const timestamp = String(clock);
  return { "x-api-key": apiKey, "x-timestamp": timestamp, "x-signature": sign(secretKey, "{}", timestamp) };
}

/** A body-less GET as the HTTP layer hands it over. */
const get = (signing: SigningHeaders, url = "/api/v1/external/account/list"): SignedContent => ({
  method: "GET",
  url,
  headers: signing,
  body: undefined,
});

test("a change made by another process is seen within EPOCH_CHECK_MS, however long the cache TTL", async () => {
  // This authenticator stands for another process: nothing tells it of the change but the database.
  const authenticator = new Authenticator({
    db: services.storage.db,
    reads: services.storage.hot,
    openSecret: secretKeyOpener(services.box),
    now: () => clock,
    cacheTtlMs: 60_000,
  });
  const created = await services.businesses.createBusiness("Cached Ltd", "completed");
  const caller = await authenticator.authenticate(get(headers(created.apiKey, created.secretKey)));
  assert.equal(caller.businessId, created.business.id);

  await services.businesses.setKeyStatus(created.apiKey, "revoked");
  clock += EPOCH_CHECK_MS - 1;
  await authenticator.authenticate(get(headers(created.apiKey, created.secretKey))); // the cache, still
  clock += 1;
  await assert.rejects(
    authenticator.authenticate(get(headers(created.apiKey, created.secretKey))),
    /Invalid API key/,
    "the epoch moved: the cache was dropped and the database read again",
  );
});

test("with nothing changed, a cached key costs no query at all between epoch checks", async () => {
  const authenticator = new Authenticator({
    db: services.storage.db,
    reads: services.storage.hot,
    openSecret: secretKeyOpener(services.box),
    now: () => clock,
    cacheTtlMs: 60_000,
  });
  const created = await services.businesses.createBusiness("Quiet Ltd", "completed");
  await authenticator.authenticate(get(headers(created.apiKey, created.secretKey)));
  const other = await services.businesses.createBusiness("Unrelated Ltd", "completed");
  await services.businesses.setVerificationStatus(other.business.id, "rejected", CLI, "suspended for a test");
  clock += EPOCH_CHECK_MS;
  // Another business changed: the cache is dropped, the key read again, and still good.
  assert.equal(
    (await authenticator.authenticate(get(headers(created.apiKey, created.secretKey)))).businessId,
    created.business.id,
  );
});

test("the process that made the change sees it at once", async () => {
  const created = await services.businesses.createBusiness("Same Process Ltd", "completed");
  const signed = () => get(headers(created.apiKey, created.secretKey));
  // services.authenticator is wired to this BusinessService, with the configured cache on.
  await services.authenticator.authenticate(signed());
  await services.businesses.setKeyStatus(created.apiKey, "inactive");
  await assert.rejects(services.authenticator.authenticate(signed()), /Invalid API key/);
});

test("with a TTL of 0 every request reads the database", async () => {
  const authenticator = new Authenticator({
    db: services.storage.db,
    reads: services.storage.hot,
    openSecret: secretKeyOpener(services.box),
    now: () => clock,
    cacheTtlMs: 0,
  });
  const created = await services.businesses.createBusiness("Uncached Ltd", "completed");
  await authenticator.authenticate(get(headers(created.apiKey, created.secretKey)));
  await services.businesses.setVerificationStatus(
    created.business.id,
    "rejected",
    CLI,
    "suspended for a test",
  );
  await assert.rejects(
    authenticator.authenticate(get(headers(created.apiKey, created.secretKey))),
    /Business not verified/,
  );
});

test("the caller carries the verified signature in its one canonical form", async () => {
  const authenticator = new Authenticator({
    db: services.storage.db,
    reads: services.storage.hot,
    openSecret: secretKeyOpener(services.box),
    now: () => clock,
    cacheTtlMs: 0,
  });
  const created = await services.businesses.createBusiness("Canonical Ltd", "completed");
  const signed = headers(created.apiKey, created.secretKey);
  const upper = { ...signed, "x-signature": ` \t${signed["x-signature"].toUpperCase()}\t ` };
  const caller = await authenticator.authenticate(get(upper));
  assert.equal(caller.signature, signed["x-signature"]);
  assert.equal(caller.signatureVersion, 1);
  for (const around of ["\u00a0", "\u2000", "\u3000", "\ufeff", "\n", "\u200b"]) {
    await assert.rejects(
      authenticator.authenticate(get({ ...signed, "x-signature": `${signed["x-signature"]}${around}` })),
      /Invalid signature/,
      `a signature followed by U+${around.charCodeAt(0).toString(16)} is not that signature`,
    );
  }
});

test("the body is not looked at before the headers, the key and the timestamp pass", async () => {
  const authenticator = new Authenticator({
    db: services.storage.db,
    reads: services.storage.hot,
    openSecret: secretKeyOpener(services.box),
    now: () => clock,
    cacheTtlMs: 0,
  });
  let computed = 0;
  // A body whose compact form counts its making: the raw bytes are tried first, and only a
  // signature that is checked gets that far.
  const content = (signing: SigningHeaders): SignedContent => ({
    ...get(signing),
    method: "POST",
    body: {
      raw: Buffer.from('{ "a": 1 }'),
      value: {
        toJSON: () => {
          computed++;
          return { a: 1 };
        },
      },
    },
  });
  await assert.rejects(authenticator.authenticate(content({})), /Missing required header: x-api-key/);
  await assert.rejects(
    authenticator.authenticate(content({ "x-api-key": "vak_nope", "x-signature": "a", "x-timestamp": "1" })),
    /Invalid API key/,
  );
  assert.equal(computed, 0);
});

test("version 2 binds the method, path and query; a key can require it", async () => {
  const authenticator = new Authenticator({
    db: services.storage.db,
    reads: services.storage.hot,
    openSecret: secretKeyOpener(services.box),
    now: () => clock,
    cacheTtlMs: 0,
  });
  const created = await services.businesses.createBusiness("Version Two Ltd", "completed");
  const url = "/api/v1/external/account/list?limit=1";
  const timestamp = String(clock);
  const v2 = {
    "x-api-key": created.apiKey,
    "x-timestamp": timestamp,
    "x-signature-version": "2",
    "x-signature": signRequestV2(created.secretKey, { method: "GET", url, timestamp }),
  };
  const caller = await authenticator.authenticate(get(v2, url));
  assert.equal(caller.signatureVersion, 2);
  await assert.rejects(
    authenticator.authenticate(get(v2, "/api/v1/external/account/list?limit=100")),
    /Invalid signature/,
    "the same signature with another query",
  );
  await assert.rejects(
    authenticator.authenticate({ ...get(v2, url), method: "POST" }),
    /Invalid signature/,
    "the same signature with another method",
  );
  await assert.rejects(
    authenticator.authenticate(get({ ...v2, "x-signature-version": "3" }, url)),
    /Invalid x-signature-version header/,
  );

  await services.businesses.requireSignatureVersion(created.keyId, 2);
  await assert.rejects(
    authenticator.authenticate(get(headers(created.apiKey, created.secretKey))),
    /requires signature version 2/,
  );
  assert.equal((await authenticator.authenticate(get(v2, url))).signatureVersion, 2);
});
