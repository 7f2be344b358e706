import { createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { z } from "zod";
import { ErrorCode, isAppError } from "../errors.js";
import {
  BANK_PATHS,
  createAccountSchema,
  creditQuerySchema,
  deleteAccountSchema,
  nameEnquirySchema,
  queryAccountSchema,
  RESP_CODE,
  statementQuerySchema,
  updateAccountSchema,
} from "../providers/bank-protocol.js";
import { rsaPrivateKey, rsaPublicKey } from "../providers/bank-signing.js";
import { VirtualBank } from "../providers/virtual-bank.js";
import { DEFAULT_PAYOUT_DELAYS } from "../providers/virtual-bank-payouts.js";
import { accountData, answerOf } from "./answers.js";
import { BankDatabase } from "./bank-database.js";
import { bankStore } from "./bank-store.js";
import { FaultPlan } from "./faults.js";
import { registerIdentityRoute } from "./identity-route.js";
import { Notifier } from "./notifier.js";
import { registerSandboxRoutes } from "./sandbox-routes.js";
import { signedRoutes } from "./signed-route.js";
import { creditData, statementData } from "./statement-data.js";
import { registerTransferRoutes } from "./transfer-routes.js";

// The Virtual Bank as a server of its own (issue 14): the bank protocol over HTTP, its own
// SQLite file and key pair, signed payment notifications with retries, a sandbox route to pay
// into an account, and faults on demand. `vas bank serve` runs it; the tests run it as a
// separate process.

export interface BankServerOptions {
  port: number;
  host: string;
  dataDir: string;
  appId: string;
  /** The service's public key (PEM): verifies every call. */
  clientPublicKeyPem: string;
  /** The service's notification URL (POST /api/v1/bank/notifications). */
  notifyUrl: string;
  /** Where transfers out's status notifications go (default: notifyUrl's origin + /api/v1/bank/payout-notifications). */
  payoutNotifyUrl?: string;
  /** How long a transfer out stays pending, and how long until a reversing destination sends it back. */
  payoutSettleMs?: number;
  payoutReverseMs?: number;
  /** The 6-digit code NUBANs are computed for. */
  institutionCode: string;
  /** First retry delay for notifications (doubling). */
  retryBaseMs: number;
  maxAttempts: number;
  logLevel: "info" | "warn" | "error" | "silent";
}

export interface BankServer {
  address: string;
  /** bank.pub: what the service is given as BANK_PUBLIC_KEY_FILE. */
  publicKeyFile: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** The bank's key pair in its data directory: made on first start (bank.pem private, bank.pub public). */
export function bankKeys(dataDir: string): { privateKey: KeyObject; publicKeyFile: string } {
  const privateFile = path.join(dataDir, "bank.pem");
  const publicFile = path.join(dataDir, "bank.pub");
  if (!existsSync(privateFile)) {
    const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
    writeFileSync(privateFile, pair.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  }
  const privateKey = rsaPrivateKey(readFileSync(privateFile, "utf8"), privateFile);
  if (!existsSync(publicFile)) {
    writeFileSync(publicFile, createPublicKey(privateKey).export({ type: "spki", format: "pem" }));
  }
  return { privateKey, publicKeyFile: publicFile };
}

/** Starts the bank: opens its file, makes or loads its keys, listens, and starts notifying. */
export async function startBankServer(options: BankServerOptions): Promise<BankServer> {
  mkdirSync(options.dataDir, { recursive: true });
  const { privateKey, publicKeyFile } = bankKeys(options.dataDir);
  const clientKey = rsaPublicKey(options.clientPublicKeyPem, "the client public key");
  const db = new BankDatabase(path.join(options.dataDir, "bank.sqlite"));
  const faults = new FaultPlan();
  const bank = new VirtualBank({
    store: bankStore(db, () => faults.get().forgetTransfers),
    institutionCode: options.institutionCode,
    permutationKey: db.numberingKey(),
    blockSize: 1,
    sandbox: true,
    payoutDelays: {
      settleMs: options.payoutSettleMs ?? DEFAULT_PAYOUT_DELAYS.settleMs,
      reverseMs: options.payoutReverseMs ?? DEFAULT_PAYOUT_DELAYS.reverseMs,
    },
  });
  const app = Fastify({
    logger: { level: options.logLevel },
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
  });
  const notifier = new Notifier({
    db,
    bank,
    notifyUrl: options.notifyUrl,
    payoutNotifyUrl:
      options.payoutNotifyUrl ?? new URL("/api/v1/bank/payout-notifications", options.notifyUrl).href,
    appId: options.appId,
    privateKey,
    faults,
    retryBaseMs: options.retryBaseMs,
    maxAttempts: options.maxAttempts,
    timeoutMs: 10_000,
    pollIntervalMs: Math.min(options.retryBaseMs, 1_000),
    log: app.log,
  });

  const { route, calls } = signedRoutes(app, { appId: options.appId, clientKey, faults });

  route(BANK_PATHS.create, createAccountSchema.passthrough(), async (params) => {
    try {
      const opened = await bank.createVirtualAccount(params);
      const account = db.account(opened.accountReference);
      return answerOf(RESP_CODE.success, "success", account && accountData(account));
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.PROVIDER_REJECTED) {
        return answerOf(RESP_CODE.identityRejected, error.message);
      }
      if (isAppError(error) && error.code === ErrorCode.PROVIDER_UNAVAILABLE) {
        return answerOf(RESP_CODE.busy, "identity verification is unavailable; retry later");
      }
      throw error;
    }
  });
  registerIdentityRoute(route, bank);
  route(BANK_PATHS.query, queryAccountSchema.passthrough(), async ({ accountReference }) => {
    const account = db.account(accountReference);
    if (!account) return answerOf(RESP_CODE.accountNotFound, `no account for reference ${accountReference}`);
    return answerOf(RESP_CODE.success, "success", accountData(account));
  });
  route(BANK_PATHS.update, updateAccountSchema.passthrough(), async ({ virtualAccountNo, status }) => {
    if (!db.setStatus(virtualAccountNo, status === "Enabled" ? "enabled" : "disabled")) {
      return answerOf(RESP_CODE.accountNotFound, `no account ${virtualAccountNo}`);
    }
    return answerOf(RESP_CODE.success, "success");
  });
  route(BANK_PATHS.delete, deleteAccountSchema.passthrough(), async ({ virtualAccountNo }) => {
    if (!db.setStatus(virtualAccountNo, "deleted")) {
      return answerOf(RESP_CODE.accountNotFound, `no account ${virtualAccountNo}`);
    }
    return answerOf(RESP_CODE.success, "success");
  });
  route(BANK_PATHS.banks, z.looseObject({}), async () => {
    const banks = await bank.listBanks();
    return answerOf(
      RESP_CODE.success,
      "success",
      banks.map(({ code, name }) => ({ bankCode: code, bankName: name })),
    );
  });
  route(BANK_PATHS.nameEnquiry, nameEnquirySchema.passthrough(), async ({ bankCode, accountNo }) => {
    const accountName = await bank.resolveAccount(bankCode, accountNo);
    if (accountName === undefined) {
      return answerOf(RESP_CODE.accountNotFound, `no account ${accountNo} at bank ${bankCode}`);
    }
    return answerOf(RESP_CODE.success, "success", { bankCode, accountNo, accountName });
  });

  registerTransferRoutes(route, { bank, faults, notifier });

  // The statement and the query of one credit (issue 27): what reconciliation reads.
  route(BANK_PATHS.statement, statementQuerySchema.passthrough(), async (params) => {
    if (params.endTime <= params.startTime) {
      return answerOf(RESP_CODE.invalidParameter, "endTime: must be after startTime");
    }
    try {
      const page = await bank.statementPage(
        { from: params.startTime, to: params.endTime },
        params.cursor,
        params.pageSize,
      );
      return answerOf(RESP_CODE.success, "success", statementData(page));
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.PROVIDER_REJECTED) {
        return answerOf(RESP_CODE.invalidParameter, `cursor: ${error.message}`);
      }
      throw error;
    }
  });
  route(BANK_PATHS.creditQuery, creditQuerySchema.passthrough(), async ({ orderNo }) => {
    const credit = await bank.findCredit(orderNo);
    if (!credit) return answerOf(RESP_CODE.accountNotFound, `no credit with orderNo ${orderNo}`);
    return answerOf(RESP_CODE.success, "success", creditData(credit));
  });

  registerSandboxRoutes(app, { db, notifier, faults, calls });
  app.get("/health", async () => ({ status: "ok" }));

  const address = await app.listen({ port: options.port, host: options.host });
  notifier.start();
  notifier.kick();
  return {
    address,
    publicKeyFile,
    app,
    async close() {
      await app.close();
      await notifier.stop();
      db.close();
    },
  };
}
