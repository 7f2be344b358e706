import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A real server process (src/main.ts through tsx) listening on a free port: `url` is its address. */
export interface ServerProcess extends RepositoryProcess<string> {
  url: string;
}

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const started = await startRepositoryProcess(
    ["src/main.ts"],
    {
      NODE_ENV: "test",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      WEBHOOK_ALLOW_PRIVATE: "true",
      // KYC tiers' limits off, as in the harness (harness.ts's TIER_LIMITS_OFF).
      TIER1_LIMITS: "none,none,none",
      TIER2_LIMITS: "none,none,none",
      ...env,
    },
    "server",
    readyAddress,
  );
  return { ...started, url: started.ready };
}

/** The address a server's "ready" log line names, once it has written it. */
export const readyAddress = (output: string): string | undefined =>
  /"address":"(http:\/\/[^"]+)"[^\n]*Virtual Account Service ready/.exec(output)?.[1];

/** A process of this repository's own code, run through tsx, once it has said it is ready. */
export interface RepositoryProcess<T> {
  /** What `ready` found in the output. */
  ready: T;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process has exited by itself. */
  exited(): Promise<number | null>;
}

/**
 * Starts `node --import tsx <args>` in the repository with only PATH and `env`, and waits until
 * `ready` finds what it looks for in the output (stdout and stderr). A process that exits
 * first, or says nothing for 60 s, is killed and the output thrown.
 */
export function startRepositoryProcess<T>(
  args: string[],
  env: Record<string, string>,
  what: string,
  ready: (output: string) => T | undefined,
): Promise<RepositoryProcess<T>> {
  return startProcess(process.execPath, ["--import", "tsx", ...args], { cwd: ROOT, env }, what, ready);
}

/** As startRepositoryProcess, for any command in any directory (still only PATH and `env`). */
export async function startProcess<T>(
  command: string,
  args: string[],
  where: { cwd: string; env: Record<string, string> },
  what: string,
  ready: (output: string) => T | undefined,
): Promise<RepositoryProcess<T>> {
  const child = spawn(command, args, {
    cwd: where.cwd,
    env: { PATH: process.env.PATH ?? "", ...where.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const found = await new Promise<T>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const value = ready(output);
      if (value !== undefined) resolve(value);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    exited.then((code) => reject(new Error(`${what} exited with ${code} before it was ready:\n${output}`)));
    // A bound, not a measurement: a process that never comes up must not hang the suite.
    setTimeout(() => reject(new Error(`${what} not ready after 60 s:\n${output}`)), 60_000).unref();
  }).catch(async (error) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    ready: found,
    child,
    output: () => output,
    exited: () => exited,
    stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
