import { createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from "fastify";
import { z } from "zod";
import { ErrorCode, isAppError } from "../errors.js";
import {
  BANK_PATHS,
  createAccountSchema,
  creditQuerySchema,
  deleteAccountSchema,
  IDENTITY_PATH,
  identityQuerySchema,
  nameEnquirySchema,
  queryAccountSchema,
  RESP_CODE,
  statementQuerySchema,
  transferOutSchema,
  transferQuerySchema,
  updateAccountSchema,
} from "../providers/bank-protocol.js";
import {
  isFreshMessage,
  type ProtocolValue,
  rsaPrivateKey,
  rsaPublicKey,
  verifyParams,
} from "../providers/bank-signing.js";
import { VirtualBank } from "../providers/virtual-bank.js";
import { DEFAULT_PAYOUT_DELAYS } from "../providers/virtual-bank-payouts.js";
import { accountData, answer, answerOf } from "./answers.js";
import { BankDatabase } from "./bank-database.js";
import { bankStore } from "./bank-store.js";
import { FaultPlan } from "./faults.js";
import { Notifier, transferData } from "./notifier.js";
import { registerSandboxRoutes } from "./sandbox-routes.js";
import { creditData, statementData } from "./statement-data.js";

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

  /** The caller must be the service: its app id, its signature, a fresh requestTime. */
  const refusal = (request: FastifyRequest): [string, string] | undefined => {
    if (request.headers.authorization !== `Bearer ${options.appId}`) {
      return [RESP_CODE.unknownApp, "unknown app id"];
    }
    const body = request.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return [RESP_CODE.invalidParameter, "the body must be a JSON object"];
    }
    const params = body as Record<string, ProtocolValue>;
    if (!verifyParams(params, request.headers.signature, clientKey)) {
      return [RESP_CODE.badSignature, "the signature does not verify"];
    }
    if (!isFreshMessage(params.requestTime, Date.now())) {
      return [RESP_CODE.expired, "requestTime is more than 5 minutes from the bank's clock"];
    }
    return undefined;
  };

  // API calls received per route, whatever their outcome (GET /sandbox/calls): what tests and
  // integrators check to see a retry, a query before it, or no call at all.
  const calls: Record<string, number> = Object.fromEntries(Object.keys(BANK_PATHS).map((name) => [name, 0]));
  const routeNames = new Map(Object.entries(BANK_PATHS).map(([name, url]) => [url as string, name]));

  /**
   * A signed API route: faults first, then the caller, then the body, then the handler. The
   * identity call (issue 46) is spared the faults (`withFaults` false): they are the accounts' and
   * payouts' (a create that hangs, a bank that fails the next calls), and the service asks it
   * before every create, where it would take the fault meant for the create.
   */
  const route = <T extends z.ZodTypeAny>(
    url: string,
    schema: T,
    handle: (params: z.infer<T>) => Promise<ReturnType<typeof answerOf>>,
    withFaults = true,
  ) =>
    app.post(url, async (request, reply) => {
      const name = routeNames.get(url);
      if (name) calls[name] = (calls[name] ?? 0) + 1;
      const { latencyMs } = withFaults ? faults.get() : { latencyMs: 0 };
      if (latencyMs > 0) await sleep(latencyMs);
      if (withFaults && faults.take("failNext"))
        return reply.code(500).send({ respCode: RESP_CODE.busy, respMsg: "injected failure" });
      const refused = refusal(request);
      if (refused) return answer(reply, ...refused);
      const parsed = schema.safeParse(request.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return answer(
          reply,
          RESP_CODE.invalidParameter,
          `${issue?.path.join(".") || "body"}: ${issue?.message}`,
        );
      }
      const hang = withFaults && faults.take("hangNext");
      const result = await handle(parsed.data);
      if (!hang) return reply.code(200).send(result);
      // Acted on, then never answered: the connection is held until the caller gives up.
      reply.hijack();
      await new Promise((resolve) => request.raw.socket.once("close", resolve));
      return undefined;
    });

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
  // Issue 46: the identity call, answered by the Virtual Bank's rules (no registry but the sandbox's).
  route(
    IDENTITY_PATH,
    identityQuerySchema.passthrough(),
    async ({ identityType, licenseNumber, customerName }) => {
      try {
        const registeredName = await bank.identityName({ identityType, licenseNumber, customerName });
        if (registeredName === undefined) {
          return answerOf(
            RESP_CODE.accountNotFound,
            `no record of this ${identityType === "personal" ? "BVN" : "NIN"}`,
          );
        }
        return answerOf(RESP_CODE.success, "success", { identityType, licenseNumber, registeredName });
      } catch (error) {
        if (isAppError(error) && error.code === ErrorCode.PROVIDER_UNAVAILABLE) {
          return answerOf(RESP_CODE.busy, "identity verification is unavailable; retry later");
        }
        throw error;
      }
    },
    false,
  );
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

  route(BANK_PATHS.transferOut, transferOutSchema.passthrough(), async (params) => {
    if (faults.take("refuseTransfers")) {
      return answerOf(RESP_CODE.transferRefused, "transfer refused by the bank (fault injected)");
    }
    try {
      const state = await bank.sendTransfer({
        reference: params.orderId,
        amount: params.amount,
        bankCode: params.bankCode,
        accountNumber: params.accountNo,
        accountName: params.accountName,
        narration: params.remark,
      });
      notifier.kick();
      return answerOf(RESP_CODE.success, "success", transferData(state));
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.PROVIDER_REJECTED) {
        return answerOf(RESP_CODE.transferRefused, error.message);
      }
      throw error;
    }
  });
  route(BANK_PATHS.transferQuery, transferQuerySchema.passthrough(), async ({ orderId }) => {
    // A transfer the sandbox was told to forget is unknown here too, as in the statement.
    const forgotten = faults.get().forgetTransfers.includes(orderId);
    const state = forgotten ? undefined : await bank.findTransfer(orderId);
    if (!state) return answerOf(RESP_CODE.accountNotFound, `no transfer with orderId ${orderId}`);
    return answerOf(RESP_CODE.success, "success", transferData(state));
  });

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
