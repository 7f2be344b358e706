// npm run bench [-- --db postgres] [--duration 10] [--connections 50] [--accounts 1000000] [--out dir]
// Starts the real server (and the floor server) as processes on a fresh database, drives them
// with autocannon, and reports throughput, latency, errors and peak RSS; see docs/performance.md.

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { sign } from "../src/auth/signature.js";
import { openServices } from "../src/compose.js";
import type { DatabaseLocation } from "../src/config.js";
import { loadConfig } from "../src/config.js";
import { seedAccounts } from "./seed.js";
import { combinedStats, type WebhookPayee, type WebhookStats, webhookPayee } from "./webhooks.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    accounts: { type: "string", default: "1000000" },
    out: { type: "string", default: path.join(ROOT, "bench/results") },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const DEEP = Number(args.accounts);
const SMALL = Math.min(10_000, DEEP);
const FLOOR_SECRET = randomBytes(16).toString("hex");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
if (args.db !== "sqlite" && args.db !== "postgres") throw new Error("--db is sqlite or postgres");

interface Scenario {
  name: string;
  floor: "write" | "read";
  expectStatus: number[];
  request: (n: number) => {
    method: "GET" | "POST";
    path: string;
    body?: string;
    key: Key;
    badSignature?: boolean;
  };
}
interface Key {
  apiKey: string;
  secretKey: string;
}
export interface Result {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  total: number;
  peakRssMb: number;
  floor?: "write" | "read";
  ratioToFloor?: number;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vas-bench-"));
  const { url, drop } = await freshDatabase(dir);
  const children: ChildProcess[] = [];
  try {
    log(`seeding (${args.db}): businesses and ${DEEP.toLocaleString()} + ${SMALL.toLocaleString()} accounts`);
    const masterKey = randomBytes(32);
    const env = { DATABASE_URL: url, VAS_MASTER_KEY: masterKey.toString("hex") };
    const services = await openServices(loadConfig({ ...env, DATA_DIR: dir }));
    const business = async (name: string, accounts: number) => {
      const created = await services.businesses.createBusiness(name, "completed");
      if (accounts > 0) await seedAccounts(services, created.business.id, accounts);
      return { apiKey: created.apiKey, secretKey: created.secretKey };
    };
    const writer = await business("Writer Ltd", 0);
    const small = await business("Small Ltd", SMALL);
    const deep = await business("Deep Ltd", DEEP);
    // Ten payee businesses with ten accounts each, which the sandbox pays into: the transfer
    // scenarios pay into one of them, or spread over all ten.
    const payees: Array<{ key: Key; accounts: string[] }> = [];
    for (let b = 0; b < 10; b++) {
      const name = `Payee ${b} Ltd`;
      const created = await services.businesses.createBusiness(name, "completed");
      const accounts: string[] = [];
      for (let i = 0; i < 10; i++) {
        const { account } = await services.accounts.generatePermanent(
          { businessId: created.business.id, businessName: name },
          { type: "cli" },
          { name: `Payee ${i}`, email: `payee${b}.${i}@example.com`, bvn: "22345678901" },
        );
        accounts.push(account.accountNumber);
      }
      payees.push({ key: { apiKey: created.apiKey, secretKey: created.secretKey }, accounts });
    }
    // Payees whose events go to webhook receivers in this process: one receiver; ten; nine and
    // one that never answers.
    const hooked = await webhookPayee(services, "Hooked Ltd", 1, false);
    const fanout = await webhookPayee(services, "Fanout Ltd", 10, false);
    // At most 10 endpoints a business: nine that answer and the hanging one.
    const fanoutHanging = await webhookPayee(services, "Fanout Hanging Ltd", 9, true);
    await services.close();

    const floor = await startProcess("bench/floor-server.ts", { ...env, FLOOR_SECRET }, "/ready", children);
    // The service as deployed (info logs, one line per request), rate limits off: one client
    // sending thousands of requests a second is the point here.
    const server = await startProcess(
      "src/main.ts",
      {
        ...env,
        DATA_DIR: dir,
        RATE_LIMIT_PER_KEY_PER_MIN: "0",
        RATE_LIMIT_PER_IP_PER_MIN: "0",
        LOG_LEVEL: "info",
        // Production settings but for the sandbox route, which the transfer scenario pays through,
        // and webhooks to the receiver on this machine.
        SANDBOX: "true",
        WEBHOOK_ALLOW_PRIVATE: "true",
      },
      "/health",
      children,
    );

    const results: Result[] = [];
    log("floors");
    const floorWrite = await measure("floor: HMAC + insert", floor, [201], (n) => ({
      method: "POST",
      path: "/write",
      body: JSON.stringify({ n, email: `floor${n}@example.com` }),
      key: { apiKey: "", secretKey: FLOOR_SECRET },
    }));
    const floorRead = await measure("floor: HMAC + 10-row page", floor, [200], () => ({
      method: "GET",
      path: "/read",
      key: { apiKey: "", secretKey: FLOOR_SECRET },
    }));
    results.push(floorWrite, floorRead);

    const listScenarios = (key: Key, accounts: number, pages: Array<[number, number, string]>): Scenario[] =>
      pages.map(([page, limit, label]) => ({
        name: `list ${label} (${accounts.toLocaleString()} accounts)`,
        floor: "read",
        expectStatus: [200],
        request: () => ({
          method: "GET",
          path: `/api/v1/external/account/list?page=${page}&limit=${limit}`,
          key,
        }),
      }));
    const run = randomBytes(3).toString("hex");
    // Transfers into the payees' accounts, request n to business n mod count: the same load
    // whether it lands on one business's ledger rows or on ten businesses' rows.
    const transfers = (name: string, into: typeof payees): Scenario => ({
      name,
      floor: "write",
      expectStatus: [201],
      request: (n) => {
        const payee = into[n % into.length] as (typeof payees)[number];
        return {
          method: "POST",
          path: "/api/v1/external/sandbox/transfers",
          body: JSON.stringify({
            accountNumber: payee.accounts[Math.floor(n / into.length) % payee.accounts.length],
            amount: 10_000 + n,
            narration: `bench ${run} ${name.length} ${n}`,
          }),
          key: payee.key,
        };
      },
    });
    const scenarios: Scenario[] = [
      {
        name: "generate, distinct emails",
        floor: "write",
        expectStatus: [201],
        request: (n) => ({
          method: "POST",
          path: "/api/v1/external/account/generate",
          body: customer(`d${run}-${n}`, n),
          key: writer,
        }),
      },
      {
        name: "generate, re-issue (5 emails)",
        floor: "write",
        expectStatus: [200, 201],
        request: (n) => ({
          method: "POST",
          path: "/api/v1/external/account/generate",
          body: customer(`r${run}-${n % 5}`, n),
          key: writer,
        }),
      },
      {
        name: "generate temporary",
        floor: "write",
        expectStatus: [201],
        request: (n) => ({
          method: "POST",
          path: "/api/v1/external/account/generate/temporary",
          body: customer(`t${run}-${n}`, n),
          key: writer,
        }),
      },
      ...listScenarios(small, SMALL, [
        [1, 10, "page 1, 10 items"],
        [1, 100, "page 1, 100 items"],
        [Math.ceil(SMALL / 20), 10, "middle page"],
        [Math.ceil(SMALL / 10), 10, "last page"],
      ]),
      ...listScenarios(deep, DEEP, [
        [1, 10, "page 1"],
        [Math.ceil(DEEP / 20), 10, "middle page"],
        [Math.ceil(DEEP / 10), 10, "last page"],
      ]),
      transfers("sandbox transfer, one business", payees.slice(0, 1)),
      transfers("sandbox transfer, spread over 10 businesses", payees),
      {
        name: "authentication rejected (bad signature)",
        floor: "write",
        expectStatus: [401],
        request: () => ({
          method: "GET",
          path: "/api/v1/external/account/list",
          key: writer,
          badSignature: true,
        }),
      },
    ];
    for (const scenario of scenarios) {
      log(scenario.name);
      const result = await measure(scenario.name, server, scenario.expectStatus, scenario.request);
      const base = scenario.floor === "write" ? floorWrite : floorRead;
      results.push({
        ...result,
        floor: scenario.floor,
        ratioToFloor: round(result.requestsPerSecond / base.requestsPerSecond, 2),
      });
    }

    // Webhooks: transfers into a hooked business; each is an event the server's worker
    // delivers to the receivers here. Deliveries per second and event-to-delivery latency, to
    // one receiver, to ten, and to nine beside one that hangs until the timeout.
    const webhookPhase = async (name: string, payee: WebhookPayee): Promise<WebhookStats> => {
      log(name);
      const scenario = transfers(name, [{ key: payee.key, accounts: payee.accounts }]);
      const started = Date.now();
      const result = await measure(name, server, [201], scenario.request);
      results.push({
        ...result,
        floor: "write",
        ratioToFloor: round(result.requestsPerSecond / floorWrite.requestsPerSecond, 2),
      });
      const expected = (result.total - result.errors) * payee.receivers.length;
      const count = () => payee.receivers.reduce((sum, r) => sum + r.count(), 0);
      const deadline = Date.now() + 60_000;
      while (count() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const stats = combinedStats(payee.receivers, started);
      if (stats.delivered < expected || stats.distinct * payee.receivers.length < stats.delivered) {
        process.stderr.write(`${name}: ${stats.delivered} of ${expected} delivered\n`);
        process.exitCode = 1;
      }
      return stats;
    };
    const webhooks = {
      oneReceiver: await webhookPhase("sandbox transfer, events delivered to a webhook", hooked),
      tenReceivers: await webhookPhase("sandbox transfer, events to 10 webhook receivers", fanout),
      nineReceiversAndOneHanging: await webhookPhase(
        "sandbox transfer, events to 9 receivers and a hanging one",
        fanoutHanging,
      ),
    };
    await Promise.all(
      [hooked, fanout, fanoutHanging].flatMap((p) => [...p.receivers, ...p.others]).map((r) => r.close()),
    );

    const report = {
      date: new Date().toISOString(),
      database: args.db,
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      accounts: { deep: DEEP, small: SMALL },
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model,
        memoryGb: round(os.totalmem() / 2 ** 30, 1),
        node: process.version,
      },
      results,
      webhooks,
    };
    mkdirSync(args.out, { recursive: true });
    const file = path.join(args.out, `${report.date.replace(/[:.]/g, "-")}-${args.db}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    const line = (label: string, w: WebhookStats) =>
      `${label}: ${w.delivered} delivered, ${w.deliveriesPerSecond}/s, ` +
      `event to delivery p50 ${w.latencyP50Ms} ms, p99 ${w.latencyP99Ms} ms`;
    process.stdout.write(
      `\n${table(results)}\n\n${line("webhooks", webhooks.oneReceiver)}\n` +
        `${line("webhooks, 10 receivers", webhooks.tenReceivers)}\n` +
        `${line("webhooks, 9 receivers beside a hanging one (the 9)", webhooks.nineReceiversAndOneHanging)}\n` +
        `JSON: ${file}\n`,
    );
    const failed = results.filter((r) => r.errors > 0);
    if (failed.length > 0) {
      process.stderr.write(`errors in: ${failed.map((r) => r.name).join(", ")}\n`);
      process.exitCode = 1;
    }
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null))),
      ),
    );
    await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function customer(emailId: string, n: number): string {
  return JSON.stringify({
    name: `Customer ${n}`,
    email: `${emailId}@bench.example.com`,
    bvn: "22345678901",
    ref: n,
  });
}

interface Target {
  url: string;
  pid: number;
}

/** Runs one autocannon measurement; every request is signed when it is sent. */
async function measure(
  name: string,
  target: Target,
  expectStatus: number[],
  build: Scenario["request"],
): Promise<Result> {
  let n = 0;
  const first = build(0);
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: DURATION,
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
            },
          };
        },
      },
    ],
  });
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
  };
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return round(kb / 1024, 0);
}

/** Starts a server script on a free port and waits until `readyPath` answers. Its logs go nowhere. */
async function startProcess(
  script: string,
  env: Record<string, string>,
  readyPath: string,
  children: ChildProcess[],
): Promise<Target> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
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

async function freshDatabase(
  dir: string,
): Promise<{ location: DatabaseLocation; url: string; drop: () => Promise<void> }> {
  if (args.db === "sqlite") {
    const file = path.join(dir, "bench.db");
    return { location: { dialect: "sqlite", file }, url: `sqlite:${file}`, drop: async () => {} };
  }
  const name = `vas_bench_${randomBytes(4).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const target = new URL(ADMIN_URL);
  target.pathname = `/${name}`;
  return {
    location: { dialect: "postgres", url: target.toString() },
    url: target.toString(),
    drop: () => admin(`drop database if exists "${name}" with (force)`),
  };
}

function table(results: Result[]): string {
  const header = ["scenario", "req/s", "p50 ms", "p99 ms", "errors", "peak RSS MB", "× floor"];
  const rows = results.map((r) => [
    r.name,
    String(r.requestsPerSecond),
    String(r.p50Ms),
    String(r.p99Ms),
    String(r.errors),
    String(r.peakRssMb),
    r.ratioToFloor === undefined ? "(floor)" : `${r.ratioToFloor} × ${r.floor}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

await main();
