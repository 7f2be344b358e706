// npm run bench [-- --db postgres] [--targets generate,list] [--rounds 3] [--duration 6] [--warmup 2]
//   [--connections 50] [--accounts 1000000] [--only text] [--out dir] [--cpu-prof dir]
//   [--charges on|vat|off]
// Measures the service against a bare floor the way the performance targets are judged
// (../shared/bench/measure.mjs): the service (as `npm start` starts it), the floor and this
// process (the load generator) pinned to CPUs 0 and 1; the targets' scenarios in alternating
// rounds, each run after its own warm-up, the ratio the median over the rounds. Then the other
// scenarios, on a seeded database of their own. See docs/performance.md.

import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openServices, type Services } from "../src/compose/services.js";
import { loadConfig } from "../src/config/load.js";
import { setChargeSchedule } from "../src/ledger-audit/charges.js";
import {
  extraBusinesses,
  extraScenarios,
  PACED_RATE,
  PAYOUT_PHASE,
  payoutPhase,
  WEBHOOK_PHASES,
  type WebhookPhase,
  webhookPhase,
} from "./extras.js";
import {
  buildService,
  CPUS,
  freshDatabase,
  log,
  pinning,
  pinSelf,
  ROOT,
  startProcess,
  stopProcesses,
  type Target,
} from "./harness.js";
import { alternate, combine, type Load, measure, type Result } from "./load.js";
import type { PayoutStats } from "./payouts.js";
import { type TargetResult, writeReport } from "./report.js";
import { floorRequests, TARGET_IDS, TARGET_SCENARIOS, type TargetId, targetBusinesses } from "./targets.js";
import type { WebhookStats } from "./webhooks.js";

const { values: args } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    // The targets' scenarios to run, in this order (as BENCH_SCENARIOS there), and nothing else.
    targets: { type: "string" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "6" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "50" },
    accounts: { type: "string", default: "1000000" },
    out: { type: "string", default: path.join(ROOT, "bench/results") },
    // Only the scenarios whose names contain this text: to measure one change.
    only: { type: "string" },
    // A directory for the service's CPU profiles (node --cpu-prof): where its time goes under
    // load; `npm run bench:profile -- <file>` sums them by package and function.
    "cpu-prof": { type: "string" },
    // Transfers with charges against the same without (issue 46): each gives the targets'
    // businesses a 10 % fee; `on` charges VAT on it and a stamp duty on every credit, `vat` VAT only.
    charges: { type: "string" },
  },
});
const LOAD: Load = {
  duration: Number(args.duration),
  warmup: Number(args.warmup),
  connections: Number(args.connections),
};
const ROUNDS = Number(args.rounds);
const DEEP = Number(args.accounts);
const SMALL = Math.min(10_000, DEEP);
const FLOOR_SECRET = randomBytes(16).toString("hex");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
if (args.db !== "sqlite" && args.db !== "postgres") throw new Error("--db is sqlite or postgres");
const DIALECT: "sqlite" | "postgres" = args.db;
const chosen = (name: string) => args.only === undefined || name.includes(args.only);
const TARGETS = targetsToRun();
const EXTRAS = args.targets === undefined ? extraScenarios(DEEP, SMALL).filter((s) => chosen(s.name)) : [];
const PHASES = args.targets === undefined ? WEBHOOK_PHASES.filter((p) => chosen(p.name)) : [];
const PAYOUTS = args.targets === undefined && chosen(PAYOUT_PHASE);
const FLOOR_NAMES = { write: "floor: HMAC + insert", read: "floor: HMAC + 10-row page" } as const;

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vas-bench-"));
  const pin = pinning();
  if (pin.length > 0) pinSelf();
  log(
    pin.length > 0
      ? `pinned: service, floor and load generator on CPUs ${CPUS}`
      : "not pinned (no taskset, or CPUs 0,1 not allowed)",
  );
  const drops: Array<() => Promise<void>> = [];
  const fresh = async (name: string) => {
    const database = await freshDatabase(DIALECT, dir, name, ADMIN_URL);
    drops.push(database.drop);
    return database.url;
  };
  const children: ChildProcess[] = [];
  try {
    log("building the service");
    buildService();
    const floor = await startProcess(
      "bench/floor-server.ts",
      { FLOOR_DATABASE_URL: await fresh("floor"), FLOOR_SECRET },
      "/ready",
      children,
      pin,
    );
    const floorSide = (kind: "write" | "read") => ({
      kind,
      name: FLOOR_NAMES[kind],
      target: floor,
      expectStatus: [200],
      next: floorRequests(kind, FLOOR_SECRET),
    });
    const floors = { write: floorSide("write"), read: floorSide("read") };
    const floorRuns: Record<"write" | "read", Result[]> = { write: [], read: [] };
    const results: Result[] = [];
    // The service as the targets' measurement runs it: development settings, warnings only in
    // its log, rate limits off (one client sending thousands of requests a second is the point).
    const masterKey = randomBytes(32).toString("hex");
    const serviceEnv = (url: string, more: Record<string, string> = {}) => ({
      DATABASE_URL: url,
      VAS_MASTER_KEY: masterKey,
      DATA_DIR: dir,
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_KEY_PER_MIN: "0",
      RATE_LIMIT_PER_IP_PER_MIN: "0",
      SANDBOX: "true",
      // Issue 46: the targets pay many transfers into few accounts, past any tier's limits; the
      // check is made all the same.
      TIER1_LIMITS: "none,none,none",
      TIER2_LIMITS: "none,none,none",
      ...more,
    });
    const startService = (env: Record<string, string>) =>
      startProcess(startCommand(), env, "/health", children, pin);

    // The targets' scenarios, on a database holding only what they make.
    if (TARGETS.length > 0) {
      const env = serviceEnv(await fresh("service"));
      const services = await openServices(loadConfig(env));
      const businesses = await targetBusinesses(services);
      if (args.charges !== undefined) await chargeTargets(services, args.charges);
      await services.close();
      const server = await startService(env);
      for (const id of TARGETS) {
        const s = TARGET_SCENARIOS[id];
        log(`${s.name} (the targets' ${id}): ${ROUNDS} alternating rounds`);
        const side = {
          name: s.name,
          target: server,
          expectStatus: s.expectStatus,
          next: s.requests(businesses),
        };
        const compared = await alternate(side, floors[s.floor], LOAD, ROUNDS);
        const row: TargetResult = { ...compared.service, target: id, goal: s.goal };
        results.push(row);
        floorRuns[s.floor].push(...compared.floorRuns);
      }
      await server.stop();
    }

    // The rest, on a database of their own with deep account lists.
    let webhooks: Partial<Record<WebhookPhase["key"], WebhookStats>> = {};
    let payouts: PayoutStats | undefined;
    if (EXTRAS.length > 0 || PHASES.length > 0 || PAYOUTS) {
      const more = await extras(serviceEnv, fresh, startService, floors, floorRuns, results);
      webhooks = more.webhooks;
      payouts = more.payouts;
    }

    const floorRows = (["write", "read"] as const)
      .filter((kind) => floorRuns[kind].length > 0)
      .map((kind) => combine(FLOOR_NAMES[kind], floorRuns[kind]));
    const report = {
      database: DIALECT,
      pinned: pin.length > 0,
      rounds: ROUNDS,
      warmupSeconds: LOAD.warmup,
      durationSeconds: LOAD.duration,
      connections: LOAD.connections,
      accounts: { deep: DEEP, small: SMALL },
      results: [...floorRows, ...results],
      webhooks,
      payouts,
    };
    writeReport(report, args.out, PACED_RATE);
    const failed = results.filter((r) => r.errors > 0);
    if (failed.length > 0) {
      process.stderr.write(`errors in: ${failed.map((r) => r.name).join(", ")}\n`);
      process.exitCode = 1;
    }
  } finally {
    await stopProcesses(children);
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Floors = Record<"write" | "read", Parameters<typeof alternate>[1]>;

/** The scenarios beyond the targets': one run each beside one of its floor. */
async function extras(
  serviceEnv: (url: string, more?: Record<string, string>) => Record<string, string>,
  fresh: (name: string) => Promise<string>,
  startService: (env: Record<string, string>) => Promise<Target>,
  floors: Floors,
  floorRuns: Record<"write" | "read", Result[]>,
  results: Result[],
) {
  const webhooks: Partial<Record<WebhookPhase["key"], WebhookStats>> = {};
  let payouts: PayoutStats | undefined;
  log(`seeding (${DIALECT}): businesses and ${DEEP.toLocaleString()} + ${SMALL.toLocaleString()} accounts`);
  // Webhooks to the receivers on this machine; the sandbox's bank finishes a payout as soon as
  // it is asked: what is measured is the service's side of create to final.
  const env = serviceEnv(await fresh("seeded"), {
    WEBHOOK_ALLOW_PRIVATE: "true",
    SANDBOX_PAYOUT_SETTLE_MS: "0",
  });
  const services = await openServices(loadConfig(env));
  const b = await extraBusinesses(services, DEEP, SMALL);
  await services.close();
  const server = await startService(env);
  const floorRun = async (kind: "write" | "read") => {
    const f = floors[kind];
    const run = await measure(f.name, f.target, f.expectStatus, f.next, LOAD);
    floorRuns[kind].push(run);
    return run;
  };
  for (const s of EXTRAS) {
    log(s.name);
    const side = { name: s.name, target: server, expectStatus: s.expectStatus, next: s.requests(b) };
    const compared = await alternate(side, floors[s.floor], LOAD, 1);
    results.push(compared.service);
    floorRuns[s.floor].push(...compared.floorRuns);
  }
  if (PAYOUTS) {
    log(PAYOUT_PHASE);
    const f = await floorRun("write");
    const { result, stats } = await payoutPhase(
      PAYOUT_PHASE,
      server,
      b.payer,
      LOAD,
      env,
      f.requestsPerSecond,
    );
    results.push(withRatio(result, f));
    payouts = stats;
  }
  for (const phase of PHASES) {
    log(phase.name);
    const f = await floorRun("write");
    const { result, stats } = await webhookPhase(phase.name, server, phase.payee(b), LOAD, phase.rate);
    results.push(withRatio(result, f));
    webhooks[phase.key] = stats;
  }
  await Promise.all(
    [b.paced, b.hooked, b.fanout, b.fanoutHanging]
      .flatMap((p) => [...p.receivers, ...p.others])
      .map((r) => r.close()),
  );
  await server.stop();
  return { webhooks, payouts };
}

/** A run's row held to the write floor's run beside it. */
function withRatio(result: Result, floor: Result): Result {
  return {
    ...result,
    floor: "write",
    ratioToFloor: Math.round((100 * result.requestsPerSecond) / floor.requestsPerSecond) / 100,
  };
}

/** The targets' scenarios to run: those --targets names, in its order, or all whose names --only matches. */
function targetsToRun(): TargetId[] {
  if (args.targets === undefined) return TARGET_IDS.filter((id) => chosen(TARGET_SCENARIOS[id].name));
  const ids = args.targets.split(",").map((id) => id.trim());
  const unknown = ids.filter((id) => !(TARGET_IDS as readonly string[]).includes(id));
  if (unknown.length > 0)
    throw new Error(`--targets: ${unknown.join(", ")} not among ${TARGET_IDS.join(", ")}`);
  return ids as TargetId[];
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

await main();

/**
 * `--charges on|vat|off`: every business a 10 % fee (VAT on the bench's 100-kobo-and-up transfers
 * is then at least a kobo), with `on` VAT 7.5 % and a 1-kobo stamp duty on every credit (the
 * transfer path's worst case: both charges' accounts moved), with `vat` VAT alone (the default
 * schedule's credits: the stamp duty is the sender's, on payouts).
 */
async function chargeTargets(services: Services, charges: string): Promise<void> {
  if (charges !== "on" && charges !== "vat" && charges !== "off")
    throw new Error("--charges is on, vat or off");
  for (const business of await services.businesses.listBusinesses())
    await services.collections.setFee(business.businessId, { basisPoints: 1_000, capKobo: null });
  if (charges === "on")
    await setChargeSchedule(
      services.storage.db,
      {
        vatBasisPoints: 750,
        stampDutyKobo: 1,
        stampDutyThresholdKobo: 1,
        stampDutyOnPayouts: true,
        stampDutyOnCredits: true,
      },
      new Date().toISOString(),
    );
  log(
    `charges ${charges}: a 10 % fee${charges === "on" ? ", VAT 7.5 % and a stamp duty on every credit" : ""}`,
  );
}
