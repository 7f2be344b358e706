// What a run prints and keeps: the table of every scenario, the webhook and payout lines, the
// targets' ratios (the line to compare with ../shared/bench/measure.mjs's last), and the JSON
// report in bench/results/ (not committed).

import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { round } from "./harness.js";
import type { Result } from "./load.js";
import type { PayoutStats } from "./payouts.js";
import type { WebhookStats } from "./webhooks.js";

/** A targets' scenario's row, with what it is held to. */
export type TargetResult = Result & { target: string; goal: number };

export interface Report {
  database: "sqlite" | "postgres";
  pinned: boolean;
  rounds: number;
  warmupSeconds: number;
  durationSeconds: number;
  connections: number;
  accounts: { deep: number; small: number };
  results: Result[];
  webhooks: Partial<Record<string, WebhookStats>>;
  payouts: PayoutStats | undefined;
}

/** Writes the JSON report into `dir` and prints the table and the lines under it; the file. */
export function writeReport(report: Report, dir: string, paced: number): string {
  const date = new Date().toISOString();
  const full = {
    date,
    ...report,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGb: round(os.totalmem() / 2 ** 30, 1),
      node: process.version,
    },
  };
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${date.replace(/[:.]/g, "-")}-${report.database}.json`);
  writeFileSync(file, `${JSON.stringify(full, null, 2)}\n`);
  const { webhooks, payouts } = report;
  const line = (label: string, w: WebhookStats | undefined) =>
    w === undefined
      ? ""
      : `${label}: ${w.delivered} delivered, ${w.deliveriesPerSecond}/s, ` +
        `event to delivery p50 ${w.latencyP50Ms} ms, p99 ${w.latencyP99Ms} ms\n`;
  const targets = report.results.filter((r): r is TargetResult => "target" in r);
  process.stdout.write(
    `\n${table(report.results)}\n\n` +
      line(`webhooks, ${paced} transfers a second`, webhooks.paced) +
      line("webhooks", webhooks.oneReceiver) +
      line("webhooks, 10 receivers", webhooks.tenReceivers) +
      line("webhooks, 9 receivers beside a hanging one (the 9)", webhooks.nineReceiversAndOneHanging) +
      (payouts
        ? `payouts: ${payouts.created} created, ${payouts.finalPerSecond}/s created to final ` +
          `(${payouts.ratioToWriteFloor} of the write floor)\n`
        : "") +
      (targets.length > 0
        ? `ratio to floor, median of ${report.rounds} alternating rounds${report.pinned ? ", pinned" : ""}: ` +
          `${targets.map((r) => `${r.target} ${r.ratioToFloor?.toFixed(2)} (target ${r.goal})`).join(", ")}\n`
        : "") +
      `JSON: ${file}\n`,
  );
  return file;
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
    "load CPU µs/req",
    "× floor",
    "rounds",
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
    String(r.loadCpuUsPerRequest),
    r.ratioToFloor === undefined ? "(floor)" : `${r.ratioToFloor} × ${r.floor}`,
    r.rounds === undefined ? "" : r.rounds.join(" "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
