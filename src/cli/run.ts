// The `vas` admin CLI: every command is one entry of COMMANDS (commands/, a file per group);
// this file dispatches, prints help, opens the services on first use and maps failures to
// exit codes (2 for usage, 1 for a failed operation).
import { openServices, type Services } from "../compose/services.js";
import { type Config, loadClientEnvironment, loadConfig } from "../config/load.js";
import { type CliIo, type Command, UsageError } from "./command.js";
import { BANK_COMMANDS } from "./commands/bank.js";
import { BUSINESS_COMMANDS } from "./commands/businesses.js";
import { CHARGE_COMMANDS } from "./commands/charges.js";
import { COLLECTION_COMMANDS } from "./commands/collections.js";
import { CREDIT_COMMANDS } from "./commands/credits.js";
import { KEY_COMMANDS } from "./commands/keys.js";
import { LEDGER_COMMANDS } from "./commands/ledger.js";
import { OPERATOR_COMMANDS } from "./commands/operators.js";
import { PAYOUT_COMMANDS } from "./commands/payouts.js";
import { RECONCILIATION_COMMANDS } from "./commands/reconciliation.js";
import { REQUEST_COMMANDS } from "./commands/request.js";
import { SECRET_COMMANDS } from "./commands/secrets.js";
import { SETTLEMENT_COMMANDS } from "./commands/settlements.js";
import { WEBHOOK_COMMANDS } from "./commands/webhooks.js";
import { formatCommandUsage, formatGroupUsage, formatUsage } from "./usage.js";

export type { CliIo };

const COMMANDS: readonly Command[] = [
  ...BUSINESS_COMMANDS,
  ...KEY_COMMANDS,
  ...SECRET_COMMANDS,
  ...REQUEST_COMMANDS,
  ...COLLECTION_COMMANDS,
  ...PAYOUT_COMMANDS,
  ...SETTLEMENT_COMMANDS,
  ...LEDGER_COMMANDS,
  ...CHARGE_COMMANDS,
  ...CREDIT_COMMANDS,
  ...RECONCILIATION_COMMANDS,
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
    const code = await command.run(args, {
      io,
      config: readConfig,
      services,
      client: () => loadClientEnvironment(io.env),
    });
    return typeof code === "number" ? code : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`vas ${command.name}: ${error.message}\nRun "vas ${command.name} --help" for usage.\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`vas ${command.name}: ${message}\n`);
    return 1;
  } finally {
    // A mail still being sent is waited for no longer than the command said (MAIL_WAIT_MS).
    await opened?.close({ mailWaitMs: opened.config.mail.waitMs });
  }
}
