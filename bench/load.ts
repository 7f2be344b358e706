// How a server is measured: one autocannon run of a scenario after a warm-up of the same
// requests, with the server's CPU time per request; and the comparison every ratio comes from,
// the service and its floor in alternating rounds, the ratio the median over the rounds (as the
// targets' own measurement, ../shared/bench/measure.mjs, takes it). The scenarios are in
// bench/targets.ts and bench/extras.ts.

import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { sign } from "../src/auth/signature.js";
import { type Key, log, round, type Target } from "./harness.js";

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
  /**
   * The same of this process, the load generator: signing and sending. Much of the CPU spent
   * here makes both sides of a ratio look alike.
   */
  loadCpuUsPerRequest: number;
  floor?: "write" | "read";
  /** The median of the rounds' ratios to the floor. */
  ratioToFloor?: number;
  /** Each round's ratio, in order. */
  rounds?: number[];
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
 * Runs one scenario on one server: a warm-up of the same requests, then the measurement. `next`
 * gives each request as it goes out, so a scenario that needs distinct requests (new emails)
 * gets them throughout, across warm-ups and rounds.
 */
export async function measure(
  name: string,
  target: Target,
  expectStatus: number[],
  next: () => BenchRequest,
  load: Load,
): Promise<Result> {
  const run = (duration: number) =>
    autocannon({
      url: target.url,
      connections: load.connections,
      duration,
      ...(load.rate === undefined ? {} : { overallRate: load.rate }),
      requests: [{ setupRequest: (request) => signed(request, next()) }],
    });
  if (load.warmup > 0) await run(load.warmup);
  const cpuBefore = cpuMs(target.pid);
  const loadBefore = process.cpuUsage();
  const databaseBefore = databaseCpuMs();
  const result = await run(load.duration);
  const cpuSpent = cpuMs(target.pid) - cpuBefore;
  const loadSpent = process.cpuUsage(loadBefore);
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
    loadCpuUsPerRequest: perRequest((loadSpent.user + loadSpent.system) / 1000),
  };
}

/** autocannon's request with the scenario's next one in it, signed now: new timestamp, new HMAC. */
function signed<R extends object>(request: R, next: BenchRequest): R {
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
      "x-signature": next.badSignature ? signature.replace(/^./, (c) => (c === "0" ? "1" : "0")) : signature,
      ...(next.body === undefined ? {} : { "content-type": "application/json" }),
      ...next.headers,
    },
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

/** One side of a comparison: a server and the requests a scenario sends it. */
export interface Side {
  name: string;
  target: Target;
  expectStatus: number[];
  next: () => BenchRequest;
}

/** The service's figures over the rounds of a comparison, and the floor's runs beside them. */
export interface Compared {
  service: Result;
  floorRuns: Result[];
}

/**
 * The service and its floor in alternating rounds, each run after its own warm-up: whatever
 * else the machine does in a minute falls on both sides alike. Each round's ratio is the
 * service's rate over the floor's; the scenario's ratio is their median.
 */
export async function alternate(
  service: Side,
  floor: Side & { kind: "write" | "read" },
  load: Load,
  rounds: number,
): Promise<Compared> {
  const serviceRuns: Result[] = [];
  const floorRuns: Result[] = [];
  const ratios: number[] = [];
  for (let k = 1; k <= rounds; k++) {
    const s = await measure(service.name, service.target, service.expectStatus, service.next, load);
    const f = await measure(floor.name, floor.target, floor.expectStatus, floor.next, load);
    const ratio = f.requestsPerSecond > 0 ? s.requestsPerSecond / f.requestsPerSecond : Number.NaN;
    log(
      `${service.name}, round ${k}: service ${s.requestsPerSecond} req/s p99 ${s.p99Ms} ms (errors ${s.errors}); ` +
        `floor ${f.requestsPerSecond} req/s p99 ${f.p99Ms} ms (errors ${f.errors}); ratio ${ratio.toFixed(2)}`,
    );
    serviceRuns.push(s);
    floorRuns.push(f);
    ratios.push(ratio);
  }
  return {
    service: {
      ...combine(service.name, serviceRuns),
      floor: floor.kind,
      ratioToFloor: round(median(ratios), 2),
      rounds: ratios.map((r) => round(r, 2)),
    },
    floorRuns,
  };
}

/**
 * Several runs of one server as one row: the median of each rate, latency and cost, the errors
 * and requests of all, the highest peak RSS.
 */
export function combine(name: string, runs: Result[]): Result {
  const mid = (pick: (r: Result) => number) => round(median(runs.map(pick)), 0);
  return {
    name,
    requestsPerSecond: mid((r) => r.requestsPerSecond),
    p50Ms: mid((r) => r.p50Ms),
    p99Ms: mid((r) => r.p99Ms),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    total: runs.reduce((sum, r) => sum + r.total, 0),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    cpuUsPerRequest: mid((r) => r.cpuUsPerRequest),
    databaseCpuUsPerRequest: mid((r) => r.databaseCpuUsPerRequest),
    loadCpuUsPerRequest: mid((r) => r.loadCpuUsPerRequest),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const m = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[m] as number)
    : ((sorted[m - 1] as number) + (sorted[m] as number)) / 2;
}

/** A scenario's requests numbered from 0 on, one sequence for all its runs. */
export function numbered(build: (n: number) => BenchRequest): () => BenchRequest {
  let n = 0;
  return () => build(n++);
}
