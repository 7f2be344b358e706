import { readFileSync } from "node:fs";
import path from "node:path";
import { startBankServer } from "../../bank/bank-server.js";
import { rsaPublicKey } from "../../providers/bank-signing.js";
import { type Command, parse, positionals, UsageError } from "../command.js";

// The Virtual Bank as its own server (issue 14, docs/bank-integration.md).

const integer = (name: string, value: string | undefined, fallback: number, min: number, max: number) => {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
};

export const BANK_COMMANDS: readonly Command[] = [
  {
    name: "bank serve",
    synopsis:
      "--port <p> --data-dir <dir> --app-id <id> --client-public-key <pem file> --notify-url <url> [--host <h>] [--institution-code <6 digits>] [--retry-base-ms <ms>] [--max-attempts <n>] [--payout-settle-ms <ms>] [--payout-reverse-ms <ms>] [--log-level <level>]",
    description: [
      "Run the Virtual Bank as a server of its own, speaking the bank protocol over HTTP: its own",
      "SQLite file and key pair in --data-dir (bank.pem and bank.pub, made on first start: give",
      "bank.pub to the service as BANK_PUBLIC_KEY_FILE), calls verified with --client-public-key,",
      "payment notifications signed and sent to --notify-url until acknowledged (retries double",
      "from --retry-base-ms, default 1000, for up to --max-attempts, default 12). Transfers out",
      "stay pending --payout-settle-ms (default 2000), a reversing destination's come back",
      "--payout-reverse-ms later (default 10000); their statuses go to the notify URL's origin",
      "+ /api/v1/bank/payout-notifications until acknowledged. Sandbox routes: POST /sandbox/pay,",
      "GET /sandbox/transfers/<orderNo>, GET /sandbox/transfers-out, GET /sandbox/accounts,",
      "GET /sandbox/calls, PUT /sandbox/faults.",
      "Prints one JSON line with its address once it listens; stops on SIGINT or SIGTERM.",
    ],
    run: async (args, { io }) => {
      const { values, positionals: rest } = parse(args, {
        port: { type: "string" },
        host: { type: "string" },
        "data-dir": { type: "string" },
        "app-id": { type: "string" },
        "client-public-key": { type: "string" },
        "notify-url": { type: "string" },
        "institution-code": { type: "string" },
        "retry-base-ms": { type: "string" },
        "max-attempts": { type: "string" },
        "payout-settle-ms": { type: "string" },
        "payout-reverse-ms": { type: "string" },
        "log-level": { type: "string" },
      });
      positionals(rest, 0, "no positional arguments");
      for (const name of ["port", "data-dir", "app-id", "client-public-key", "notify-url"] as const) {
        if (values[name] === undefined) throw new UsageError(`--${name} is required`);
      }
      const port = integer("--port", values.port, 0, 0, 65_535);
      const notifyUrl = values["notify-url"] ?? "";
      if (!/^https?:\/\//.test(notifyUrl) || !URL.canParse(notifyUrl)) {
        throw new UsageError("--notify-url must be an http:// or https:// URL");
      }
      const institutionCode = values["institution-code"] ?? "999240";
      if (!/^\d{6}$/.test(institutionCode)) throw new UsageError("--institution-code must be 6 digits");
      const keyFile = path.resolve(values["client-public-key"] ?? "");
      let clientPublicKeyPem: string;
      try {
        clientPublicKeyPem = readFileSync(keyFile, "utf8");
        rsaPublicKey(clientPublicKeyPem, keyFile);
      } catch (error) {
        throw new UsageError(`--client-public-key: ${(error as Error).message}`);
      }
      const logLevel = values["log-level"] ?? "info";
      if (!["info", "warn", "error", "silent"].includes(logLevel)) {
        throw new UsageError("--log-level must be info, warn, error or silent");
      }
      if (!io.untilStopped) throw new UsageError("bank serve runs only as a process of its own");
      const dataDir = path.resolve(values["data-dir"] ?? "");
      const server = await startBankServer({
        port,
        host: values.host ?? "127.0.0.1",
        dataDir,
        appId: values["app-id"] ?? "",
        clientPublicKeyPem,
        notifyUrl,
        institutionCode,
        retryBaseMs: integer("--retry-base-ms", values["retry-base-ms"], 1_000, 10, 3_600_000),
        maxAttempts: integer("--max-attempts", values["max-attempts"], 12, 1, 100),
        payoutSettleMs: integer("--payout-settle-ms", values["payout-settle-ms"], 2_000, 0, 10_000),
        payoutReverseMs: integer("--payout-reverse-ms", values["payout-reverse-ms"], 10_000, 0, 20_000),
        logLevel: logLevel as "info",
      });
      io.stdout(`${JSON.stringify({ listening: server.address, publicKey: server.publicKeyFile })}\n`);
      await io.untilStopped();
      await server.close();
    },
  },
];
