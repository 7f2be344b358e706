// npm run bench [-- --db postgres] [--duration 10] [--warmup 3] [--connections 50] [--accounts 1000000] [--out dir] [--only text] [--cpu-prof dir]
// Starts the real server and the floor server as processes, each on a fresh database of its own,
// drives them with autocannon, and reports throughput, latency, errors and peak RSS; see
// docs/performance.md. The machinery is in bench/harness.ts.

import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { permanentInput } from "../src/accounts/validation.js";
import { openServices } from "../src/compose/services.js";
import { loadConfig } from "../src/config/load.js";
import { check } from "../src/core/validation.js";
import {
  type BenchRequest,
  buildService,
  freshDatabase,
  type Key,
  log,
  measure,
  type Result,
  ROOT,
  round,
  startProcess,
  stopProcesses,
  table,
} from "./harness.js";
import { type PayoutStats, payoutBusiness } from "./payouts.js";
import { seedAccounts } from "./seed.js";
import { combinedStats, type WebhookPayee, type WebhookStats, webhookPayee } from "./webhooks.js";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    accounts: { type: "string", default: "1000000" },
    out: { type: "string", default: path.join(ROOT, "bench/results") },
    // Only the scenarios whose names contain this text (the floors always run): to measure one change.
    only: { type: "string" },
    // A directory for the service's CPU profiles (node --cpu-prof): where its time goes under
    // load; `npm run bench:profile -- <file>` sums them by package and function.
    "cpu-prof": { type: "string" },
  },
});
const LOAD = {
  duration: Number(args.duration),
  warmup: Number(args.warmup),
  connections: Number(args.connections),
};
const DEEP = Number(args.accounts);
const SMALL = Math.min(10_000, DEEP);
const FLOOR_SECRET = randomBytes(16).toString("hex");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
if (args.db !== "sqlite" && args.db !== "postgres") throw new Error("--db is sqlite or postgres");
const DIALECT: "sqlite" | "postgres" = args.db;
/** Transfers a second in the paced webhook scenario: issue 29's "notification to webhook" target. */
const PACED_RATE = 500;

interface Scenario {
  name: string;
  floor: "write" | "read";
  expectStatus: number[];
  request: (n: number) => BenchRequest;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vas-bench-"));
  // The service and the floor each on a database of their own: neither's file, cache or
  // checkpoints slow the other.
  const { url, drop } = await freshDatabase(DIALECT, dir, "service", ADMIN_URL);
  const floorDatabase = await freshDatabase(DIALECT, dir, "floor", ADMIN_URL);
  const children: ChildProcess[] = [];
  try {
    log(`seeding (${DIALECT}): businesses and ${DEEP.toLocaleString()} + ${SMALL.toLocaleString()} accounts`);
    const masterKey = randomBytes(32);
    const env = { DATABASE_URL: url, VAS_MASTER_KEY: masterKey.toString("hex") };
    const services = await openServices(loadConfig({ ...env, DATA_DIR: dir }));
    const business = async (name: string, accounts: number) => {
      const created = await services.businesses.createBusiness(name, "completed");
      if (accounts > 0) await seedAccounts(services, created.business.id, accounts);
      return { apiKey: created.apiKey, secretKey: created.secretKey };
    };
    const writer = await business("Writer Ltd", 0);
    // Ten more writers: generate spread over ten businesses, whose rows and locks are their own.
    const writers: Key[] = [];
    for (let b = 0; b < 10; b++) writers.push(await business(`Writer ${b} Ltd`, 0));
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
          check(permanentInput, {
            name: `Payee ${i}`,
            email: `payee${b}.${i}@example.com`,
            bvn: "22345678901",
          }),
        );
        accounts.push(account.accountNumber);
      }
      payees.push({ key: { apiKey: created.apiKey, secretKey: created.secretKey }, accounts });
    }
    // Payees whose events go to webhook receivers in this process: one receiver; ten; nine and
    // one that never answers.
    const hooked = await webhookPayee(services, "Hooked Ltd", 1, false);
    // A business whose transfers arrive at a steady PACED_RATE a second, each an event to its one receiver.
    const paced = await webhookPayee(services, "Paced Ltd", 1, false);
    const fanout = await webhookPayee(services, "Fanout Ltd", 10, false);
    // At most 10 endpoints a business: nine that answer and the hanging one.
    const fanoutHanging = await webhookPayee(services, "Fanout Hanging Ltd", 9, true);
    // A business that pays out: API payouts on, no limit in the way, and money to send.
    const payer = await payoutBusiness(services);
    await services.close();

    const floor = await startProcess(
      "bench/floor-server.ts",
      { FLOOR_DATABASE_URL: floorDatabase.url, FLOOR_SECRET },
      "/ready",
      children,
    );
    // The service as deployed (info logs, one line per request), rate limits off: one client
    // sending thousands of requests a second is the point here.
    log("building the service");
    buildService();
    const server = await startProcess(
      startCommand(),
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
        // The sandbox's bank finishes a payout as soon as it is asked: what is measured is the
        // service's side of create to final.
        SANDBOX_PAYOUT_SETTLE_MS: "0",
      },
      "/health",
      children,
    );

    const results: Result[] = [];
    log("floors");
    const floorWrite = await measure(
      "floor: HMAC + insert",
      floor,
      [201],
      (n) => ({
        method: "POST",
        path: "/write",
        body: JSON.stringify({ n, email: `floor${n}@example.com` }),
        key: { apiKey: "", secretKey: FLOOR_SECRET },
      }),
      LOAD,
    );
    const floorRead = await measure(
      "floor: HMAC + 10-row page",
      floor,
      [200],
      () => ({
        method: "GET",
        path: "/read",
        key: { apiKey: "", secretKey: FLOOR_SECRET },
      }),
      LOAD,
    );
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
        name: "generate, distinct emails, 10 businesses",
        floor: "write",
        expectStatus: [201],
        request: (n) => ({
          method: "POST",
          path: "/api/v1/external/account/generate",
          body: customer(`s${run}-${n}`, n),
          key: writers[n % writers.length] as Key,
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
    const chosen = (name: string) => args.only === undefined || name.includes(args.only);
    for (const scenario of scenarios.filter((s) => chosen(s.name))) {
      log(scenario.name);
      const result = await measure(scenario.name, server, scenario.expectStatus, scenario.request, LOAD);
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
    const webhookPhase = async (name: string, payee: WebhookPayee, rate?: number): Promise<WebhookStats> => {
      log(name);
      const scenario = transfers(name, [{ key: payee.key, accounts: payee.accounts }]);
      // No warm-up here: its events would be deliveries to count too (the server is warm by now).
      const started = Date.now();
      const load = { ...LOAD, warmup: 0, ...(rate === undefined ? {} : { rate }) };
      const result = await measure(name, server, [201], scenario.request, load);
      results.push({
        ...result,
        floor: "write",
        ratioToFloor: round(result.requestsPerSecond / floorWrite.requestsPerSecond, 2),
      });
      const expected = (result.total - result.errors) * payee.receivers.length;
      const count = () => payee.receivers.reduce((sum, r) => sum + r.count(), 0);
      // The backlog drains at the worker's pace, which is what is measured: wait for as long as
      // deliveries keep arriving, and give up only after 30 s without one.
      let last = count();
      let progressAt = Date.now();
      while (count() < expected && Date.now() - progressAt < 30_000) {
        await new Promise((r) => setTimeout(r, 100));
        if (count() > last) {
          last = count();
          progressAt = Date.now();
        }
      }
      const stats = combinedStats(payee.receivers, started);
      if (stats.delivered < expected || stats.distinct * payee.receivers.length < stats.delivered) {
        process.stderr.write(`${name}: ${stats.delivered} of ${expected} delivered\n`);
        process.exitCode = 1;
      }
      return stats;
    };
    // Payouts: made through the API (202, held), then taken to their final state by the tracker
    // and the sandbox's bank; payouts per second is how many were final over the time from the
    // first request to the last final one.
    const payoutName = "payout, created to final";
    let payouts: PayoutStats | undefined;
    if (chosen(payoutName)) {
      log(payoutName);
      const started = Date.now();
      const result = await measure(payoutName, server, [202], payer.request, { ...LOAD, warmup: 0 });
      const created = result.total - result.errors;
      const finalAt = await payer.allFinal(env, dir, created);
      const finalPerSecond = round((created * 1000) / (finalAt - started), 0);
      payouts = {
        created,
        finalPerSecond,
        ratioToWriteFloor: round(finalPerSecond / floorWrite.requestsPerSecond, 2),
      };
      results.push({
        ...result,
        floor: "write",
        ratioToFloor: round(result.requestsPerSecond / floorWrite.requestsPerSecond, 2),
      });
    }

    const phase = (name: string, payee: WebhookPayee, rate?: number) =>
      chosen(name) ? webhookPhase(name, payee, rate) : Promise.resolve(undefined);
    const webhooks = {
      // Not as fast as the server answers: the bank's notifications at a steady rate, and how
      // long each takes to reach the business's receiver (the issue's "notification to webhook").
      paced: await phase(
        `sandbox transfer at ${PACED_RATE} a second, events to a webhook`,
        paced,
        PACED_RATE,
      ),
      oneReceiver: await phase("sandbox transfer, events delivered to a webhook", hooked),
      tenReceivers: await phase("sandbox transfer, events to 10 webhook receivers", fanout),
      nineReceiversAndOneHanging: await phase(
        "sandbox transfer, events to 9 receivers and a hanging one",
        fanoutHanging,
      ),
    };
    await Promise.all(
      [paced, hooked, fanout, fanoutHanging]
        .flatMap((p) => [...p.receivers, ...p.others])
        .map((r) => r.close()),
    );

    const report = {
      date: new Date().toISOString(),
      database: DIALECT,
      warmupSeconds: LOAD.warmup,
      durationSeconds: LOAD.duration,
      connections: LOAD.connections,
      accounts: { deep: DEEP, small: SMALL },
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model,
        memoryGb: round(os.totalmem() / 2 ** 30, 1),
        node: process.version,
      },
      results,
      webhooks,
      payouts,
    };
    mkdirSync(args.out, { recursive: true });
    const file = path.join(args.out, `${report.date.replace(/[:.]/g, "-")}-${DIALECT}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    const line = (label: string, w: WebhookStats | undefined) =>
      w === undefined
        ? ""
        : `${label}: ${w.delivered} delivered, ${w.deliveriesPerSecond}/s, ` +
          `event to delivery p50 ${w.latencyP50Ms} ms, p99 ${w.latencyP99Ms} ms\n`;
    process.stdout.write(
      `\n${table(results)}\n\n${line(`webhooks, ${PACED_RATE} transfers a second`, webhooks.paced)}` +
        `${line("webhooks", webhooks.oneReceiver)}` +
        `${line("webhooks, 10 receivers", webhooks.tenReceivers)}` +
        `${line("webhooks, 9 receivers beside a hanging one (the 9)", webhooks.nineReceiversAndOneHanging)}` +
        (payouts
          ? `payouts: ${payouts.created} created, ${payouts.finalPerSecond}/s created to final ` +
            `(${payouts.ratioToWriteFloor} of the write floor)\n`
          : "") +
        `JSON: ${file}\n`,
    );
    const failed = results.filter((r) => r.errors > 0);
    if (failed.length > 0) {
      process.stderr.write(`errors in: ${failed.map((r) => r.name).join(", ")}\n`);
      process.exitCode = 1;
    }
  } finally {
    await stopProcesses(children);
    await drop();
    await floorDatabase.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `npm start` runs (package.json), less `node`: the service as deployed, heap limit included. */
function startCommand(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const [node, ...rest] = pkg.scripts.start.split(/\s+/);
  if (node !== "node") throw new Error(`npm start runs ${node}, not node`);
  const profiles = args["cpu-prof"];
  return profiles ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profiles)}`, ...rest] : rest;
}

function customer(emailId: string, n: number): string {
  return JSON.stringify({
    name: `Customer ${n}`,
    email: `${emailId}@bench.example.com`,
    bvn: "22345678901",
    ref: n,
  });
}

await main();
