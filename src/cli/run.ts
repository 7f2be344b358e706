import { CLI } from "../businesses/actor.js";
import { parseBusinessName } from "../businesses/business-name.js";
import { parseKeyReference } from "../businesses/business-service.js";
import { rotateMasterKey } from "../businesses/master-key-rotation.js";
import { createClient, serviceRoot } from "../client/index.js";
import { openServices, type Services } from "../compose.js";
import { type Config, loadClientEnvironment, loadConfig } from "../config.js";
import { type ApiKeyStatus, VERIFICATION_STATUSES, type VerificationStatus } from "../storage/schema.js";
import {
  argument,
  businessId,
  type CliIo,
  type Command,
  json,
  parse,
  positionals,
  UsageError,
} from "./command.js";
import { BANK_COMMANDS } from "./commands/bank.js";
import { COLLECTION_COMMANDS } from "./commands/collections.js";
import { LEDGER_COMMANDS } from "./commands/ledger.js";
import { OPERATOR_COMMANDS } from "./commands/operators.js";
import { WEBHOOK_COMMANDS } from "./commands/webhooks.js";
import { formatTable } from "./table.js";
import { formatCommandUsage, formatGroupUsage, formatUsage } from "./usage.js";

/** `vas request` got an error answer: already printed, exit 1. */
class RequestFailed extends Error {
  constructor(readonly status: number) {
    super(`the API answered ${status}`);
  }
}

function status(value: string): VerificationStatus {
  if (!(VERIFICATION_STATUSES as readonly string[]).includes(value)) {
    throw new UsageError(`unknown status "${value}": use one of ${VERIFICATION_STATUSES.join(", ")}`);
  }
  return value as VerificationStatus;
}

/** A key argument, checked for its form (id, prefix or whole key) before anything is opened. */
function keyArgument(args: string[]): string {
  const [key] = positionals(args, 1, "<key>") as [string];
  argument(() => parseKeyReference(key));
  return key;
}

/** How every key command's help explains its <key>. */
const KEY_REFERENCE = [
  "<key>: the key's id, its prefix as key list shows it (vak_ and 8 characters), or the whole",
  "API key. A prefix that two keys share is refused (exit 1), listing their ids: give the id.",
];

/** `vas key activate|deactivate|revoke <key>`. */
function setKeyStatus(keyStatus: ApiKeyStatus): Command["run"] {
  return async (args, { io, services }) => {
    const reference = keyArgument(parse(args, {}).positionals);
    const { businesses } = await services();
    const key = await businesses.resolveKey(reference);
    await businesses.setKeyStatus(key.keyId, keyStatus);
    io.stdout(`Key ${key.prefix}... (${key.keyId}) is now ${keyStatus}\n`);
  };
}

export type { CliIo };

const COMMANDS: readonly Command[] = [
  {
    name: "business create",
    synopsis: "--name <name> [--status <status>] [--json]",
    description: [
      "Create a business and its first API key pair. The secret key is shown once, here only.",
      "The name follows the customer-name rules: trimmed and NFC-normalised, 1 to 100 characters,",
      "no control or bidirectional control characters, at least one visible character.",
      "--status defaults to not_submitted. --json prints one JSON object:",
      '{"businessId","name","verificationStatus","apiKey","secretKey"}',
    ],
    run: async (args, { io, services }) => {
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
  },
  {
    name: "business set-status",
    synopsis: "<businessId> <status> [--reason <text>]",
    description: [
      'Move a business through verification. Only "completed" businesses may call the API. Allowed:',
      "not_submitted or rejected -> in_progress (submit), in_progress -> completed (approve),",
      "in_progress -> rejected (reject) and completed -> rejected (suspend); the last two need",
      "--reason. Every change is recorded (see business history).",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { reason: { type: "string" } });
      const [id, value] = positionals(rest, 2, "<businessId> <status>") as [string, string];
      const business = businessId(id);
      const next = status(value);
      const change = await (await services()).businesses.setVerificationStatus(
        business,
        next,
        CLI,
        values.reason,
      );
      io.stdout(`Business ${id} is now ${value} (was ${change.from})\n`);
    },
  },
  {
    name: "business history",
    synopsis: "<businessId> [--json]",
    description: ["Every change of the business's verification status: when, from, to, by whom and why."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const history = await (await services()).businesses.verificationHistory(businessId(id));
      if (values.json) return json(io, history);
      const rows = history.map((change) => ({
        at: change.at,
        from: change.from,
        to: change.to,
        by: change.actor.id ? `${change.actor.type} ${change.actor.id}` : change.actor.type,
        reason: change.reason ?? "",
      }));
      io.stdout(formatTable(rows, ["at", "from", "to", "by", "reason"]));
    },
  },
  {
    name: "business list",
    synopsis: "[--json]",
    description: ["List businesses."],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      positionals(rest, 0, "no positional arguments");
      const rows = (await (await services()).businesses.listBusinesses()).map((b) => ({
        businessId: b.businessId,
        name: b.name,
        verificationStatus: b.verificationStatus,
        accounts: b.accounts,
        createdAt: b.createdAt,
      }));
      if (values.json) return json(io, rows);
      io.stdout(formatTable(rows, ["businessId", "name", "verificationStatus", "accounts", "createdAt"]));
    },
  },
  {
    name: "key create",
    synopsis: "<businessId> [--json]",
    description: [
      "Create another key pair for the business (for example to rotate a secret with no downtime).",
      '--json prints {"keyId","apiKey","secretKey"}.',
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      const pair = await (await services()).businesses.createKey(business);
      if (values.json) return json(io, pair);
      io.stdout(
        `Key id:     ${pair.keyId}\nAPI key:    ${pair.apiKey}\nSecret key: ${pair.secretKey}\nStore the secret key now: it is not shown again.\n`,
      );
    },
  },
  {
    name: "key list",
    synopsis: "<businessId> [--json]",
    description: [
      "List a business's keys (id, prefix, status, oldest signature version accepted; secrets are",
      "never shown again).",
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      const [id] = positionals(rest, 1, "<businessId>") as [string];
      const business = businessId(id);
      const keys = await (await services()).businesses.listKeys(business);
      if (values.json) return json(io, keys);
      io.stdout(
        formatTable(keys, ["keyId", "prefix", "status", "minSignatureVersion", "createdAt", "updatedAt"]),
      );
    },
  },
  {
    name: "key deactivate",
    synopsis: "<key>",
    description: ["Stop a key from authenticating; it can be activated again.", ...KEY_REFERENCE],
    run: setKeyStatus("inactive"),
  },
  {
    name: "key activate",
    synopsis: "<key>",
    description: ["Let a deactivated key authenticate again.", ...KEY_REFERENCE],
    run: setKeyStatus("active"),
  },
  {
    name: "key revoke",
    synopsis: "<key>",
    description: ["Revoke a key for good: it never authenticates or changes again.", ...KEY_REFERENCE],
    run: setKeyStatus("revoked"),
  },
  {
    name: "key require-signature-v2",
    synopsis: "<key> [--off]",
    description: [
      "Make the key refuse requests signed the specification's way (version 1): only",
      "x-signature-version: 2 requests authenticate. --off accepts both again.",
      ...KEY_REFERENCE,
    ],
    run: async (args, { io, services }) => {
      const { values, positionals: rest } = parse(args, { off: { type: "boolean" } });
      const reference = keyArgument(rest);
      const { businesses } = await services();
      const key = await businesses.resolveKey(reference);
      await businesses.requireSignatureVersion(key.keyId, values.off ? 1 : 2);
      const name = `${key.prefix}... (${key.keyId})`;
      io.stdout(
        values.off
          ? `Key ${name} accepts signature versions 1 and 2\n`
          : `Key ${name} now requires signature version 2 (x-signature-version: 2)\n`,
      );
    },
  },
  {
    name: "secrets rotate-master-key",
    synopsis: "[--json]",
    description: [
      "Re-seal every stored secret under VAS_MASTER_KEY (the new key), opening the old ones with",
      "VAS_MASTER_KEY_PREVIOUS (the old key, comma-separated if several). Procedure: generate a new",
      "key; restart every server with VAS_MASTER_KEY=<new> VAS_MASTER_KEY_PREVIOUS=<old>; run this",
      "command with the same two variables; then drop VAS_MASTER_KEY_PREVIOUS everywhere.",
      "Without VAS_MASTER_KEY it refuses (exit 2): <DATA_DIR>/master.key is never used here.",
    ],
    run: async (args, { io, config, services }) => {
      const { values, positionals: rest } = parse(args, { json: { type: "boolean" } });
      positionals(rest, 0, "no positional arguments");
      // Rotating to the key file (or to a key generated on the spot) would leave the servers,
      // which run with VAS_MASTER_KEY, unable to open anything: the new key must be explicit.
      if (!config().masterKey) {
        throw new UsageError(
          "VAS_MASTER_KEY is not set: set it to the new master key (and VAS_MASTER_KEY_PREVIOUS to the old); nothing was changed",
        );
      }
      const opened = await services();
      const report = await rotateMasterKey(opened.storage, opened.box);
      if (values.json) return json(io, report);
      io.stdout(
        `Re-sealed ${report.resealed} secret(s) under the current master key (${report.alreadyCurrent} already were).\n` +
          "Once every server runs with this VAS_MASTER_KEY, remove VAS_MASTER_KEY_PREVIOUS.\n",
      );
    },
  },
  {
    name: "request",
    synopsis:
      "<METHOD> <path> [--data <json>] [--idempotency-key <key>]\n[--api-key <key>] [--secret-key <secret>] [--base-url <url>]",
    description: [
      "Sign and send one API request and print the status and body (for debugging a first",
      "integration). Keys and URL default to VAS_API_KEY, VAS_SECRET_KEY and VAS_BASE_URL",
      '(http://127.0.0.1:3000). Example: vas request POST /account/generate --data \'{"name":"Ada",...}\'',
      "Exit code 1 when the API answers 4xx/5xx or cannot be reached.",
    ],
    run: async (args, { io }) => {
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
      const fromEnv = loadClientEnvironment(io.env);
      const apiKey = values["api-key"] ?? fromEnv.apiKey;
      const secretKey = values["secret-key"] ?? fromEnv.secretKey;
      const baseUrl = values["base-url"] ?? fromEnv.baseUrl;
      if (!apiKey || !secretKey)
        throw new UsageError("give --api-key and --secret-key, or set VAS_API_KEY and VAS_SECRET_KEY");
      // Either form is fine (with or without /api/v1/external); anything but http(s) is a usage error.
      try {
        serviceRoot(baseUrl);
      } catch {
        throw new UsageError(
          `--base-url (or VAS_BASE_URL) must be an http:// or https:// URL, not "${baseUrl}"`,
        );
      }
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
    },
  },
  ...COLLECTION_COMMANDS,
  ...LEDGER_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...OPERATOR_COMMANDS,
  ...BANK_COMMANDS,
];

/** The whole help, as `vas --help` prints it. */
export const USAGE = formatUsage(COMMANDS);

const HELP_FLAGS = ["--help", "-h", "help"];
const GROUPS = new Set(COMMANDS.map((command) => command.name.split(" ")[0]));

/** Runs one CLI invocation; returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || HELP_FLAGS.includes(first)) {
    // `vas help key revoke` is `vas key revoke --help`.
    if (first === "help" && argv.length > 1) return runCli([...argv.slice(1), "--help"], io);
    io.stdout(USAGE);
    return 0;
  }
  const command =
    COMMANDS.find((candidate) => candidate.name === first) ??
    COMMANDS.find((candidate) => candidate.name === `${first} ${second}`);
  if (!command) {
    // A group alone (`vas key`) or with --help shows that group's commands.
    if (GROUPS.has(first) && (second === undefined || HELP_FLAGS.includes(second))) {
      io.stdout(formatGroupUsage(first, COMMANDS));
      return 0;
    }
    const name = GROUPS.has(first) && second !== undefined ? `${first} ${second}` : first;
    const help = GROUPS.has(first) ? formatGroupUsage(first, COMMANDS) : USAGE;
    io.stderr(`vas: unknown command "${name}"\n\n${help}`);
    return 2;
  }
  const args = argv.slice(command.name.split(" ").length);
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(formatCommandUsage(command));
    return 0;
  }
  let config: Config | undefined;
  const readConfig = () => {
    config ??= loadConfig(io.env);
    return config;
  };
  let opened: Services | undefined;
  const services = async () => {
    if (opened) return opened;
    const config = readConfig();
    opened = await openServices(config, { poolSize: 2 });
    const master = opened.masterKey;
    if (master.source === "generated") io.stderr(`vas: generated a new master key in ${master.file}\n`);
    return opened;
  };
  try {
    await command.run(args, { io, config: readConfig, services });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`vas ${command.name}: ${error.message}\nRun "vas ${command.name} --help" for usage.\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`vas ${command.name}: ${message}\n`);
    return 1;
  } finally {
    await opened?.close();
  }
}
