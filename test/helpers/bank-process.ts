import type { ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import type { Faults } from "../../src/bank/faults.js";
import type { BANK_PATHS } from "../../src/providers/bank-protocol.js";
import { startRepositoryProcess } from "./server-process.js";

/** The bank's API calls received per route name (GET /sandbox/calls). */
type BankCalls = Record<keyof typeof BANK_PATHS, number>;

/** The Virtual Bank server (`vas bank serve`) as a process of its own, and its sandbox routes. */
export interface BankProcess {
  url: string;
  /** bank.pub in its data directory: the service's BANK_PUBLIC_KEY_FILE. */
  publicKeyFile: string;
  child: ChildProcess;
  output(): string;
  setFaults(faults: Partial<Faults>): Promise<Faults>;
  faults(): Promise<Faults>;
  /** API calls received so far, per route (create, query, update, delete). */
  calls(): Promise<BankCalls>;
  /** Pays into one of its accounts; answers the bank's transfer (orderNo, status). */
  pay(body: Record<string, unknown>): Promise<{ status: number; body: BankAnswer<BankTransferView> }>;
  transfer(orderNo: string): Promise<BankTransferView | undefined>;
  /** Polls until the transfer's notifications are over (not pending any more). */
  settled(orderNo: string): Promise<BankTransferView>;
  accounts(): Promise<Array<{ virtualAccountNo: string; accountReference: string; status: string }>>;
  /** Every transfer out it took, by the service's reference (GET /sandbox/transfers-out). */
  transfersOut(): Promise<
    Array<{ reference: string; amount: number; outcome: string; notified: string; session_id: string | null }>
  >;
  stop(): Promise<number | null>;
}

export interface BankAnswer<T> {
  respCode: string;
  respMsg: string;
  data?: T;
}

export interface BankTransferView {
  orderNo: string;
  accountNumber: string;
  amount: number;
  status: "pending" | "acknowledged" | "refused" | "abandoned";
  attempts: number;
  lastError: string | null;
}

/** The service's RSA key pair for the bank protocol, written to `dir` as client.pem and client.pub. */
export function clientKeyFiles(dir: string): { privateKeyFile: string; publicKeyFile: string } {
  const client = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const privateKeyFile = path.join(dir, "client.pem");
  const publicKeyFile = path.join(dir, "client.pub");
  writeFileSync(privateKeyFile, client.privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(publicKeyFile, client.publicKey.export({ type: "spki", format: "pem" }));
  return { privateKeyFile, publicKeyFile };
}

/** A port free now, for a server that must be named before it starts (the bank's notify URL). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

export async function startBankProcess(options: {
  dataDir: string;
  appId: string;
  clientPublicKeyFile: string;
  notifyUrl: string;
  retryBaseMs?: number;
  maxAttempts?: number;
  payoutSettleMs?: number;
  payoutReverseMs?: number;
}): Promise<BankProcess> {
  const started = await startRepositoryProcess(
    [
      "src/cli/main.ts",
      "bank",
      "serve",
      "--port",
      "0",
      "--data-dir",
      options.dataDir,
      "--app-id",
      options.appId,
      "--client-public-key",
      options.clientPublicKeyFile,
      "--notify-url",
      options.notifyUrl,
      "--retry-base-ms",
      String(options.retryBaseMs ?? 50),
      "--max-attempts",
      String(options.maxAttempts ?? 8),
      "--payout-settle-ms",
      String(options.payoutSettleMs ?? 100),
      "--payout-reverse-ms",
      String(options.payoutReverseMs ?? 300),
      "--log-level",
      "warn",
    ],
    {},
    "bank",
    (output) => {
      const line = output.split("\n").find((l) => l.startsWith('{"listening"'));
      return line ? (JSON.parse(line) as { listening: string; publicKey: string }) : undefined;
    },
  );
  const url = started.ready.listening;
  const call = async <T>(method: string, route: string, body?: unknown) => {
    const response = await fetch(`${url}${route}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as BankAnswer<T> };
  };
  const bank: BankProcess = {
    url,
    publicKeyFile: started.ready.publicKey,
    child: started.child,
    output: started.output,
    setFaults: async (faults) => (await call<Faults>("PUT", "/sandbox/faults", faults)).body.data as Faults,
    faults: async () => (await call<Faults>("GET", "/sandbox/faults")).body.data as Faults,
    calls: async () => (await call<BankCalls>("GET", "/sandbox/calls")).body.data as BankCalls,
    pay: (body) => call<BankTransferView>("POST", "/sandbox/pay", body),
    transfer: async (orderNo) =>
      (await call<BankTransferView>("GET", `/sandbox/transfers/${orderNo}`)).body.data,
    async settled(orderNo) {
      for (let i = 0; i < 400; i++) {
        const transfer = await bank.transfer(orderNo);
        if (transfer && transfer.status !== "pending") return transfer;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`transfer ${orderNo} still pending after 10 s:\n${started.output()}`);
    },
    accounts: async () =>
      (
        await call<Array<{ virtualAccountNo: string; accountReference: string; status: string }>>(
          "GET",
          "/sandbox/accounts",
        )
      ).body.data ?? [],
    transfersOut: async () =>
      (
        await call<
          Array<{
            reference: string;
            amount: number;
            outcome: string;
            notified: string;
            session_id: string | null;
          }>
        >("GET", "/sandbox/transfers-out")
      ).body.data ?? [],
    stop: () => started.stop(),
  };
  return bank;
}
