import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

// The benchmark script itself, for half a second per scenario on a tiny data set: it must run to
// the end and report every scenario with no errors. (What it measures is not asserted: no
// timed assertions in the test suite.)

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

test("npm run bench runs end to end on a tiny data set", async () => {
  const out = mkdtempSync(path.join(tmpdir(), "vas-bench-smoke-"));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--import",
        "tsx",
        "bench/run.ts",
        "--rounds",
        "1",
        "--duration",
        "0.5",
        "--warmup",
        "0.2",
        "--connections",
        "4",
        "--accounts",
        "2000",
        "--out",
        out,
      ],
      { cwd: ROOT, maxBuffer: 10 * 1024 * 1024 },
    );
    assert.match(stdout, /scenario\s+req\/s\s+p50 ms\s+p99 ms\s+errors\s+peak RSS MB/);
    const [file] = readdirSync(out).filter((name) => name.endsWith("-sqlite.json"));
    assert.ok(file, "the JSON report was written");
    const report = JSON.parse(readFileSync(path.join(out, file), "utf8"));
    const names = report.results.map((r: { name: string }) => r.name);
    for (const expected of [
      "floor: HMAC + insert",
      "floor: HMAC + 10-row page",
      "generate, distinct emails",
      "generate, distinct emails, 10 businesses",
      "generate, re-issue (5 emails)",
      "generate temporary",
      "list page 1, 10 items (2,000 accounts)",
      "list page 1, 100 items (2,000 accounts)",
      "list last page (2,000 accounts)",
      "sandbox transfer, one business",
      "sandbox transfer, spread over 10 businesses",
      "sandbox transfer, events delivered to a webhook",
      "sandbox transfer, events to 10 webhook receivers",
      "sandbox transfer, events to 9 receivers and a hanging one",
      "authentication rejected (bad signature)",
      "payout, created to final",
    ]) {
      assert.ok(names.includes(expected), `${expected} in ${names.join(", ")}`);
    }
    for (const result of report.results) {
      assert.equal(result.errors, 0, `${result.name}: errors`);
      assert.ok(result.total > 0, `${result.name}: requests were made`);
      assert.ok(result.peakRssMb > 0);
      if (!result.name.startsWith("floor")) assert.equal(typeof result.ratioToFloor, "number");
    }
    // Every payout the scenario made reached its final state, and the rate is reported.
    assert.ok(
      report.payouts.created > 0 && report.payouts.finalPerSecond > 0,
      JSON.stringify(report.payouts),
    );
    assert.equal(typeof report.payouts.ratioToWriteFloor, "number");
    const hooked = report.results.find((r: { name: string }) => r.name.endsWith("delivered to a webhook"));
    const { oneReceiver, tenReceivers, nineReceiversAndOneHanging } = report.webhooks;
    assert.ok(oneReceiver.delivered >= hooked.total, "every event of the webhook scenario was delivered");
    assert.equal(oneReceiver.distinct, oneReceiver.delivered, "none twice");
    for (const [fanout, receivers] of [
      [tenReceivers, 10],
      [nineReceiversAndOneHanging, 9],
    ] as const) {
      // No event more often than once per receiver (events of requests still in flight when the
      // scenario ended may be on their way to some receivers only).
      assert.ok(fanout.delivered > 0 && fanout.delivered <= fanout.distinct * receivers, "none twice");
    }
    assert.match(stdout, /webhooks: \d+ delivered, \d+\/s, event to delivery p50 \d+ ms, p99 \d+ ms/);
    assert.match(stdout, /webhooks, 9 receivers beside a hanging one \(the 9\): \d+ delivered/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
