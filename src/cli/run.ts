import { type ParseArgsConfig, parseArgs } from "node:util";
import { parseBusinessName } from "../accounts/validation.js";
import { resolveMasterKey } from "../businesses/master-key.js";
import { rotateMasterKey } from "../businesses/master-key-rotation.js";
import { createClient } from "../client/index.js";
import { loadConfig } from "../config.js";
import { isAppError } from "../errors.js";
import { openServices, type Services } from "../services.js";
import { type ApiKeyStatus, VERIFICATION_STATUSES, type VerificationStatus } from "../storage/schema.js";
import { formatTable } from "./table.js";
import { USAGE } from "./usage.js";

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

class UsageError extends Error {}
/** `vas request` got an error answer: already printed, exit 1. */
class RequestFailed extends Error {
  constructor(readonly status: number) {
    super(`the API answered ${status}`);
  }
}

const KEY_ACTIONS: Record<string, ApiKeyStatus> = {
  activate: "active",
  deactivate: "inactive",
  revoke: "revoked",
};

function parse<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function positionals(values: string[], count: number, names: string): string[] {
  if (values.length !== count) throw new UsageError(`expected ${names}`);
  return values;
}

function status(value: string): VerificationStatus {
  if (!(VERIFICATION_STATUSES as readonly string[]).includes(value)) {
    throw new UsageError(`unknown status "${value}": use one of ${VERIFICATION_STATUSES.join(", ")}`);
  }
  return value as VerificationStatus;
}

/** An argument the domain refuses (a business name, say) is a usage error: exit 2, nothing opened. */
function argument<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (isAppError(error)) throw new UsageError(error.message);
    throw error;
  }
}

type Command = (args: string[], services: () => Promise<Services>, io: CliIo) => Promise<void>;

const json = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);

const commands: Record<string, Command> = {
  "business create": async (args, services, io) => {
    const { values, positionals: rest } = parse(args, {
      name: { type: "string" },
      status: { type: "string" },
      json: { type: "boolean" },
    });
    positionals(rest, 0, "no positional arguments");
    if (values.name === undefined) throw new UsageError("--name is required");
    // Arguments are all checked before the database is opened: a usage error writes nothing.
    const name = argument(() => parseBusinessName(values.name));
    const initial = values.status === undefined ? undefined : status(values.status);
    const created = await (await services()).businesses.createBusiness(name, initial);
    const result = {
      businessId: created.business.id,
      name: created.business.name,
      verificationStatus: created.business.verification_status,
      apiKey: created.apiKey,
      secretKey: created.secretKey,
    };
    if (values.json) return json(io, result);
    io.stdout(
      `Created business "${result.name}" (${result.businessId}), status ${result.verificationStatus}\n` +
        `API key:    ${result.apiKey}\nSecret key: ${result.secretKey}\n` +
        "Store the secret key now: it is not shown again.\n",
    );
  },
  "business set-status": async (args, services, io) => {
    const [businessId, value] = positionals(parse(args, {}).positionals, 2, "<businessId> <status>") as [
      string,
      string,
    ];
    const next = status(value);
    await (await services()).businesses.setVerificationStatus(businessId, next);
    io.stdout(`Business ${businessId} is now ${value}\n`);
  },
  "business list": async (args, services, io) => {
    const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
    positionals(rest, 0, "no positional arguments");
    const rows = (await (await services()).businesses.listBusinesses()).map((b) => ({
      businessId: b.id,
      name: b.name,
      verificationStatus: b.verification_status,
      accounts: b.account_count,
      createdAt: b.created_at,
    }));
    if (values.json) return json(io, rows);
    io.stdout(formatTable(rows, ["businessId", "name", "verificationStatus", "accounts", "createdAt"]));
  },
  "key create": async (args, services, io) => {
    const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
    const [businessId] = positionals(rest, 1, "<businessId>") as [string];
    const pair = await (await services()).businesses.createKey(businessId);
    if (values.json) return json(io, pair);
    io.stdout(
      `Key id:     ${pair.keyId}\nAPI key:    ${pair.apiKey}\nSecret key: ${pair.secretKey}\nStore the secret key now: it is not shown again.\n`,
    );
  },
  "key list": async (args, services, io) => {
    const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
    const [businessId] = positionals(rest, 1, "<businessId>") as [string];
    const keys = await (await services()).businesses.listKeys(businessId);
    if (values.json) return json(io, keys);
    io.stdout(
      formatTable(keys, ["keyId", "prefix", "status", "minSignatureVersion", "createdAt", "updatedAt"]),
    );
  },
  "key require-signature-v2": async (args, services, io) => {
    const { values, positionals: rest } = parse(args, { off: { type: "boolean" } });
    const [keyId] = positionals(rest, 1, "<keyId>") as [string];
    const version = values.off ? 1 : 2;
    await (await services()).businesses.requireSignatureVersion(keyId, version);
    io.stdout(
      values.off
        ? `Key ${keyId} accepts signature versions 1 and 2\n`
        : `Key ${keyId} now requires signature version 2 (x-signature-version: 2)\n`,
    );
  },
};
commands.request = async (args, _services, io) => {
  const { values, positionals: rest } = parse(args, {
    data: { type: "string" },
    "api-key": { type: "string" },
    "secret-key": { type: "string" },
    "base-url": { type: "string" },
    "idempotency-key": { type: "string" },
  });
  const [method, path] = positionals(rest, 2, "<METHOD> <path>") as [string, string];
  if (!/^(GET|POST|PUT|PATCH|DELETE)$/i.test(method)) throw new UsageError(`unknown method "${method}"`);
  if (!path.startsWith("/")) throw new UsageError('the path starts with "/", e.g. /account/list?page=1');
  const apiKey = values["api-key"] ?? io.env.VAS_API_KEY;
  const secretKey = values["secret-key"] ?? io.env.VAS_SECRET_KEY;
  const baseUrl = values["base-url"] ?? io.env.VAS_BASE_URL ?? "http://127.0.0.1:3000";
  if (!apiKey || !secretKey)
    throw new UsageError("give --api-key and --secret-key, or set VAS_API_KEY and VAS_SECRET_KEY");
  let body: unknown;
  if (values.data !== undefined) {
    try {
      body = JSON.parse(values.data);
    } catch {
      throw new UsageError("--data must be JSON");
    }
  }
  const client = createClient({ baseUrl, apiKey, secretKey, maxRetries: 0 });
  const response = await client.request(method, path.replace(/^\/api\/v1\/external(?=\/)/, ""), body, {
    ...(values["idempotency-key"] ? { idempotencyKey: values["idempotency-key"] } : {}),
  });
  io.stdout(
    `HTTP ${response.status}\n${typeof response.body === "string" ? response.body : JSON.stringify(response.body, null, 2)}\n`,
  );
  if (response.status >= 400) throw new RequestFailed(response.status);
};
commands["secrets rotate-master-key"] = async (args, services, io) => {
  const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
  positionals(rest, 0, "no positional arguments");
  const opened = await services();
  const report = await rotateMasterKey(opened.storage, opened.box);
  if (values.json) return json(io, report);
  io.stdout(
    `Re-sealed ${report.resealed} secret(s) under the current master key (${report.alreadyCurrent} already were).\n` +
      "Once every server runs with this VAS_MASTER_KEY, remove VAS_MASTER_KEY_PREVIOUS.\n",
  );
};
for (const [action, keyStatus] of Object.entries(KEY_ACTIONS)) {
  commands[`key ${action}`] = async (args, services, io) => {
    const [apiKey] = positionals(parse(args, {}).positionals, 1, "<apiKey>") as [string];
    await (await services()).businesses.setKeyStatus(apiKey, keyStatus);
    io.stdout(`Key ${apiKey.slice(0, 12)}... is now ${keyStatus}\n`);
  };
}

/** Runs one CLI invocation; returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // `vas request <METHOD> <path>` is the one command without a sub-command.
  const [group, action, ...rest] = argv[0] === "request" ? ["request", "", ...argv.slice(1)] : argv;
  const args = rest;
  if (group === undefined || ["--help", "-h", "help"].includes(group)) {
    io.stdout(USAGE);
    return group === undefined ? 2 : 0;
  }
  const command = commands[action ? `${group} ${action}` : `${group}`];
  if (!command) {
    io.stderr(`vas: unknown command "${[group, action].filter(Boolean).join(" ")}"\n\n${USAGE}`);
    return 2;
  }
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(USAGE);
    return 0;
  }
  let opened: Services | undefined;
  const services = async () => {
    if (opened) return opened;
    const config = loadConfig(io.env);
    const master = resolveMasterKey(config.masterKey, config.dataDir);
    if (master.source === "generated") io.stderr(`vas: generated a new master key in ${master.file}\n`);
    opened = await openServices({
      database: config.database,
      storageOptions: { poolSize: 2, ssl: config.databaseSsl, sqliteSynchronous: config.sqliteSynchronous },
      masterKey: master.key,
      previousMasterKeys: config.previousMasterKeys,
      institutionCode: config.nubanInstitutionCode,
    });
    return opened;
  };
  try {
    await command(args, services, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(
        `vas ${[group, action].filter(Boolean).join(" ")}: ${error.message}\nRun "vas --help" for usage.\n`,
      );
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`vas ${[group, action].filter(Boolean).join(" ")}: ${message}\n`);
    return 1;
  } finally {
    await opened?.close();
  }
}
