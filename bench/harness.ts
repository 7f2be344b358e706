// The benchmark's machinery: processes on free ports, throwaway databases, one autocannon
// measurement (after a warm-up), and the report's table. The scenarios are in bench/run.ts.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { sign } from "../src/auth/signature.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface Key {
  apiKey: string;
  secretKey: string;
}

/** One request of a scenario, signed for real when it is sent. */
export interface BenchRequest {
  method: "GET" | "POST";
  path: string;
  body?: string;
  key: Key;
  badSignature?: boolean;
  /** More headers (an Idempotency-Key, say). */
  headers?: Record<string, string>;
}

export interface Result {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  total: number;
  peakRssMb: number;
  /** The server's CPU time (all its threads) during the measured run, per request answered. */
  cpuUsPerRequest: number;
  /** The same of the local PostgreSQL server's processes (0 with SQLite). */
  databaseCpuUsPerRequest: number;
  floor?: "write" | "read";
  ratioToFloor?: number;
}

export interface Target {
  url: string;
  pid: number;
}

export interface Load {
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** Seconds of the same load before measuring, not counted: caches, JIT and pools warm. */
  warmup: number;
  /** Requests a second in all, when the load is paced rather than as fast as the server answers. */
  rate?: number;
}

/**
 * Runs one scenario: a warm-up of the same requests, then the measurement. Requests are numbered
 * across both, so a scenario that needs distinct requests (new emails) gets them throughout.
 */
export async function measure(
  name: string,
  target: Target,
  expectStatus: number[],
  build: (n: number) => BenchRequest,
  load: Load,
): Promise<Result> {
  let n = 0;
  const run = (duration: number) => {
    const first = build(n);
    return autocannon({
      url: target.url,
      connections: load.connections,
      duration,
      ...(load.rate === undefined ? {} : { overallRate: load.rate }),
      requests: [
        {
          method: first.method,
          path: first.path,
          setupRequest: (request) => {
            const next = build(n++);
            const timestamp = String(Date.now());
            const signature = sign(next.key.secretKey, next.body ?? "{}", timestamp);
            return {
              ...request,
              method: next.method,
              path: next.path,
              ...(next.body === undefined ? {} : { body: next.body }),
              headers: {
                "x-api-key": next.key.apiKey,
                "x-timestamp": timestamp,
                "x-signature": next.badSignature
                  ? signature.replace(/^./, (c) => (c === "0" ? "1" : "0"))
                  : signature,
                ...(next.body === undefined ? {} : { "content-type": "application/json" }),
                ...next.headers,
              },
            };
          },
        },
      ],
    });
  };
  if (load.warmup > 0) await run(load.warmup);
  const cpuBefore = cpuMs(target.pid);
  const databaseBefore = databaseCpuMs();
  const result = await run(load.duration);
  const cpuSpent = cpuMs(target.pid) - cpuBefore;
  const databaseSpent = spentBetween(databaseBefore, databaseCpuMs());
  const perRequest = (ms: number) =>
    result.requests.total > 0 ? round((1000 * ms) / result.requests.total, 0) : 0;
  const statusCounts = result.statusCodeStats as unknown as Record<string, { count: number }>;
  const unexpected = Object.entries(statusCounts)
    .filter(([status]) => !expectStatus.includes(Number(status)))
    .reduce((sum, [, stat]) => sum + stat.count, 0);
  return {
    name,
    requestsPerSecond: round(result.requests.average, 0),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + unexpected,
    total: result.requests.total,
    peakRssMb: peakRssMb(target.pid),
    cpuUsPerRequest: perRequest(cpuSpent),
    databaseCpuUsPerRequest: perRequest(databaseSpent),
  };
}

/**
 * The process's CPU time so far (user and system, all its threads), in ms, from /proc: what a
 * request costs the server whatever else the machine is doing, steadier than its rate on a machine
 * shared with the load generator.
 */
function cpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** utime and stime (fields 14 and 15, clock ticks) of a /proc/<pid>/stat line, in ms. */
function statCpuMs(stat: string): number {
  // The command name, in parentheses before them, may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The CPU time so far of each PostgreSQL server process on this machine (the bench's database is
 * local), in ms by pid: with the service's, where a request's cost lies. Empty with SQLite.
 */
function databaseCpuMs(): Map<string, number> {
  const spent = new Map<string, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.includes(" (postgres) ")) spent.set(entry, statCpuMs(stat));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return spent;
}

/**
 * What the processes spent between two readings: a process started meanwhile counts whole; one
 * that ended takes its time with it (the pools' connections stay open throughout a run).
 */
function spentBetween(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return round(kb / 1024, 0);
}

/**
 * Starts a server on a free port and waits until `readyPath` answers. Its logs go nowhere. A
 * `.ts` script runs through tsx; otherwise `command` is Node's arguments (flags, then the built
 * script), as deployed.
 */
export async function startProcess(
  command: string | string[],
  env: Record<string, string>,
  readyPath: string,
  children: ChildProcess[],
): Promise<Target> {
  const port = await freePort();
  const script = typeof command === "string" ? command : command.join(" ");
  const args = typeof command === "string" ? ["--import", "tsx", command] : command;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      SMTP_URL: "smtp://127.0.0.1:2525",
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
      return { url, pid: child.pid as number };
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

/** Stops the processes started for the run and waits for them to exit. */
export async function stopProcesses(children: ChildProcess[]): Promise<void> {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null))),
    ),
  );
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

export function table(results: Result[]): string {
  const header = [
    "scenario",
    "req/s",
    "p50 ms",
    "p99 ms",
    "errors",
    "peak RSS MB",
    "CPU µs/req",
    "DB CPU µs/req",
    "× floor",
  ];
  const rows = results.map((r) => [
    r.name,
    String(r.requestsPerSecond),
    String(r.p50Ms),
    String(r.p99Ms),
    String(r.errors),
    String(r.peakRssMb),
    String(r.cpuUsPerRequest),
    String(r.databaseCpuUsPerRequest),
    r.ratioToFloor === undefined ? "(floor)" : `${r.ratioToFloor} × ${r.floor}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
