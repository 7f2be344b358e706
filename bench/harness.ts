// The benchmark's machinery: processes on free ports pinned to the bench's CPUs, throwaway
// databases. How a server is measured is in bench/load.ts; the run in bench/run.ts.

import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface Key {
  apiKey: string;
  secretKey: string;
}

/** A server started for the run: where it answers, and its pid for /proc. */
export interface Target {
  url: string;
  pid: number;
  /** Stops it and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * The CPUs the service, the floor and the load generator share, as in the targets' measurement
 * (../shared/bench/measure.mjs): on a machine with more cores the three still compete for two,
 * and the ratios mean the same everywhere.
 */
export const CPUS = "0,1";

/** `taskset -c 0,1` where taskset exists and may use those CPUs here; otherwise nothing. */
export function pinning(): string[] {
  const probe = spawnSync("taskset", ["-c", CPUS, "true"], { stdio: "ignore" });
  return probe.status === 0 ? ["taskset", "-c", CPUS] : [];
}

/** Pins this process (the load generator), every thread of it, to the same CPUs. */
export function pinSelf(): void {
  const pinned = spawnSync("taskset", ["-a", "-p", "-c", CPUS, String(process.pid)], { encoding: "utf8" });
  if (pinned.status !== 0) throw new Error(`taskset could not pin the load generator: ${pinned.stderr}`);
}

/**
 * Starts a server on a free port, pinned (`pin`: taskset's arguments, or none), and waits until
 * `readyPath` answers. Its logs go nowhere. A `.ts` script runs through tsx; otherwise `command`
 * is Node's arguments (flags, then the built script), as deployed. Its environment is `env` and
 * no more (PATH, PORT, HOST): nothing of the caller's settings leaks in.
 */
export async function startProcess(
  command: string | string[],
  env: Record<string, string>,
  readyPath: string,
  children: ChildProcess[],
  pin: string[],
): Promise<Target> {
  const port = await freePort();
  const script = typeof command === "string" ? command : command.join(" ");
  const args = typeof command === "string" ? ["--import", "tsx", command] : command;
  // taskset execs Node in its own place: the pid is Node's.
  const [file, ...rest] = [...pin, process.execPath, ...args] as [string, ...string[]];
  const child = spawn(file, rest, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}:\n${errors}`);
    const answer = await fetch(`${url}${readyPath}`).catch(() => undefined);
    if (answer) {
      await answer.arrayBuffer();
      return { url, pid: child.pid as number, stop: () => stopProcesses([child]) };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${script} did not start:\n${errors}`);
}

/** Builds the service (`npm run build`): the benchmark runs dist/main.js, as `npm start` does. */
export function buildService(): void {
  execFileSync(
    process.execPath,
    [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
}

/** Stops processes started for the run (those still running) and waits for them to exit. */
export async function stopProcesses(children: ChildProcess[]): Promise<void> {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  const exited = running.map((child) => new Promise((resolve) => child.once("exit", resolve)));
  for (const child of running) child.kill("SIGTERM");
  await Promise.all(exited);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A fresh database named `name`: a file in `dir` for SQLite, or a throwaway PostgreSQL database
 * (dropped by `drop`) on the server `adminUrl` names.
 */
export async function freshDatabase(
  dialect: "sqlite" | "postgres",
  dir: string,
  name: string,
  adminUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === "sqlite") return { url: `sqlite:${path.join(dir, `${name}.db`)}`, drop: async () => {} };
  const database = `vas_bench_${name}_${randomBytes(4).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${database}"`);
  const target = new URL(adminUrl);
  target.pathname = `/${database}`;
  return {
    url: target.toString(),
    drop: () => admin(`drop database if exists "${database}" with (force)`),
  };
}

export const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
