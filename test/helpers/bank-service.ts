import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type BankServer, bankKeys, startBankServer } from "../../src/bank/bank-server.js";
import { freePort } from "./bank-process.js";
import type { TestDialect } from "./databases.js";
import { API, createHarness, customer, type Harness, type TestBusiness } from "./harness.js";

/** The Virtual Bank server in this process and the service over it (PROVIDER=http), one account open. */
export interface BankAndService {
  bank: BankServer;
  /** The bank's private key: signs notifications as the bank would. */
  bankKey: KeyObject;
  h: Harness;
  business: TestBusiness;
  /** A permanent account of `business`, opened at the bank. */
  accountNumber: string;
  close(): Promise<void>;
}

/**
 * Starts both on a fresh database of the dialect. With `notify`, the service listens on a real
 * port and the bank notifies it (retrying `maxAttempts` times, `retryBaseMs` apart at first);
 * without, the bank's notifications go nowhere and the test posts its own.
 */
export async function startBankAndService(
  dialect: TestDialect,
  options: { appId: string; notify: boolean; retryBaseMs?: number; maxAttempts?: number },
): Promise<BankAndService> {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-bank-service-"));
  const client = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const clientKeyFile = path.join(dir, "client.pem");
  writeFileSync(clientKeyFile, client.privateKey.export({ type: "pkcs8", format: "pem" }));
  const port = options.notify ? await freePort() : undefined;
  const bankDir = path.join(dir, "bank");
  const bank = await startBankServer({
    port: 0,
    host: "127.0.0.1",
    dataDir: bankDir,
    appId: options.appId,
    clientPublicKeyPem: client.publicKey.export({ type: "spki", format: "pem" }) as string,
    notifyUrl: port ? `http://127.0.0.1:${port}/api/v1/bank/notifications` : "http://127.0.0.1:9/unused",
    institutionCode: "999240",
    retryBaseMs: options.retryBaseMs ?? 60_000,
    maxAttempts: options.maxAttempts ?? 1,
    logLevel: "silent",
  });
  const h = await createHarness({
    dialect,
    env: {
      PROVIDER: "http",
      BANK_URL: bank.address,
      BANK_APP_ID: options.appId,
      BANK_PRIVATE_KEY_FILE: clientKeyFile,
      BANK_PUBLIC_KEY_FILE: bank.publicKeyFile,
    },
  });
  if (port) await h.app.listen({ port, host: "127.0.0.1" });
  const business = await h.createBusiness({ name: "Bank Side" });
  const generated = await h.request({ url: `${API}/account/generate`, body: customer(), as: business });
  assert.equal(generated.statusCode, 201, generated.body);
  return {
    bank,
    bankKey: bankKeys(bankDir).privateKey,
    h,
    business,
    accountNumber: generated.json().data.accountNumber as string,
    async close() {
      await h.close();
      await bank.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
