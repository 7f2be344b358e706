import { type ParseArgsConfig, parseArgs } from "node:util";
import { isUuid } from "../businesses/api-keys.js";
import type { Services } from "../compose/services.js";
import type { ClientEnvironment, Config } from "../config/load.js";
import { isAppError } from "../errors.js";
import type { CommandHelp } from "./usage.js";

// What every `vas` command is made of: its help, what it may use, and the argument helpers
// that turn a bad argument into a usage error (exit 2) before anything is opened.

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** All of standard input (a password piped in); none when absent. */
  readStdin?: () => Promise<string>;
  /** Asks at a terminal without echoing the answer (a password); absent when no one is there. */
  askHidden?: (question: string) => Promise<string>;
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM): a command that serves waits for it. */
  untilStopped?: () => Promise<void>;
}

/** A bad invocation: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function positionals(values: string[], count: number, names: string): string[] {
  if (values.length !== count) throw new UsageError(`expected ${names}`);
  return values;
}

/** Ids are UUIDs: anything else is a typo, refused before the database is opened. */
export function businessId(value: string): string {
  if (!isUuid(value)) throw new UsageError("<businessId> must be a UUID, as business list shows it");
  return value;
}

/** An argument the domain refuses (a business name, say) is a usage error: exit 2, nothing opened. */
export function argument<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (isAppError(error)) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * What a command may use; the configuration and the services are read on first use only, and
 * `client` is a business's client side of the environment (for `vas request`).
 */
export interface Context {
  io: CliIo;
  config: () => Config;
  services: () => Promise<Services>;
  client: () => ClientEnvironment;
}

/** One `vas` command: its help and what it runs. Every command is one entry of COMMANDS. */
export interface Command extends CommandHelp {
  /** Resolves with the exit code when it is not 0 (a finding, not a failure: `vas reconcile`'s 3). */
  run: (args: string[], context: Context) => Promise<unknown>;
}

export const json = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);
