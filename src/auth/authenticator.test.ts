import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { openServices, type Services } from "../services.js";
import { Authenticator } from "./authenticator.js";
import { sign } from "./signature.js";

let dir: string;
let services: Services;
let clock = Date.parse("2026-11-21T12:00:00.000Z");

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "vas-auth-"));
  services = await openServices({
    database: { dialect: "sqlite", file: path.join(dir, "vas.db") },
    masterKey: randomBytes(32),
    institutionCode: "999240",
  });
});
after(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

function headers(apiKey: string, secretKey: string) {
  const timestamp = String(clock);
  return { "x-api-key": apiKey, "x-timestamp": timestamp, "x-signature": sign(secretKey, "{}", timestamp) };
}

test("a cached key record is reused for at most the TTL, then a revocation takes effect", async () => {
  const authenticator = new Authenticator(services.storage.db, services.box, () => clock, 2_000);
  const created = await services.businesses.createBusiness("Cached Ltd", "completed");
  const caller = await authenticator.authenticate(headers(created.apiKey, created.secretKey), ["{}"]);
  assert.equal(caller.businessId, created.business.id);

  await services.businesses.setKeyStatus(created.apiKey, "revoked");
  clock += 1_999;
  await authenticator.authenticate(headers(created.apiKey, created.secretKey), ["{}"]); // still within the bound
  clock += 2;
  await assert.rejects(
    authenticator.authenticate(headers(created.apiKey, created.secretKey), ["{}"]),
    /Invalid API key/,
    "past the bound the database is read again",
  );
});

test("with a TTL of 0 every request reads the database", async () => {
  const authenticator = new Authenticator(services.storage.db, services.box, () => clock, 0);
  const created = await services.businesses.createBusiness("Uncached Ltd", "completed");
  await authenticator.authenticate(headers(created.apiKey, created.secretKey), ["{}"]);
  await services.businesses.setVerificationStatus(created.business.id, "in_progress");
  await assert.rejects(
    authenticator.authenticate(headers(created.apiKey, created.secretKey), ["{}"]),
    /Business not verified/,
  );
});
