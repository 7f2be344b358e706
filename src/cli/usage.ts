// The help text of `vas`, assembled from the command table in run.ts: each command's synopsis
// and description are written once, beside the code that runs it.

/** What help shows of one command. */
export interface CommandHelp {
  /** How it is called: "business create", or "request". */
  name: string;
  /** Its arguments; a line break starts a continuation line. */
  synopsis: string;
  /** What it does, line by line (indented when printed). */
  description: readonly string[];
}

const INTRO = "vas: administer the Virtual Account Service (businesses and API keys)\n";

const HELP_ENTRY: CommandHelp = { name: "--help", synopsis: "", description: ["Show this help."] };

const NOTES = `Statuses: completed, in_progress, rejected, not_submitted.

The CLI works on the database named by DATABASE_URL (default sqlite:./data/vas.db), with the
master key from VAS_MASTER_KEY or <DATA_DIR>/master.key: run it with the same environment as the
server. "vas <group> --help" (vas business --help, vas key --help) shows one group's commands,
"vas <command> --help" one command's.
Exit codes: 0 success, 1 the operation failed, 2 bad arguments. Help is a success; an unknown
or ambiguous key is a failure; a missing or malformed value, or an unknown command, is 2.
`;

/** One command as help prints it: the call, then its description indented. */
export function formatEntry(command: CommandHelp): string {
  const call = `  vas ${command.name}`;
  const [first = "", ...more] = command.synopsis.split("\n");
  const continuation = " ".repeat(call.length + 1);
  const lines = [
    first ? `${call} ${first}` : call,
    ...more.map((line) => `${continuation}${line}`),
    ...command.description.map((line) => `      ${line}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** `vas --help`: every command. */
export function formatUsage(commands: readonly CommandHelp[]): string {
  return `${INTRO}\nUsage:\n${[...commands, HELP_ENTRY].map(formatEntry).join("")}\n${NOTES}`;
}

/** `vas key --help`: the commands of one group. */
export function formatGroupUsage(group: string, commands: readonly CommandHelp[]): string {
  const members = commands.filter((command) => command.name.startsWith(`${group} `));
  return `${INTRO}\nUsage:\n${members.map(formatEntry).join("")}\n${NOTES}`;
}

/** `vas key revoke --help`: one command. */
export function formatCommandUsage(command: CommandHelp): string {
  return `Usage:\n${formatEntry(command)}\n${NOTES}`;
}
