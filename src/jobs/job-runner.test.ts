import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { JobRunner } from "./job-runner.js";

// The runner's timers do not hold the process open (unref): the tests do, while they wait.
let keepAlive: NodeJS.Timeout;
beforeEach(() => {
  keepAlive = setInterval(() => {}, 1_000);
});
afterEach(() => clearInterval(keepAlive));

test("a job runs on its interval, never overlaps itself, and stop() waits for the run in flight", async () => {
  const errors: string[] = [];
  const runner = new JobRunner((name) => errors.push(name));
  let runs = 0;
  let concurrent = 0;
  let maxConcurrent = 0;
  let release: (() => void) | undefined;
  const blocked = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: (() => void) | undefined;
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  runner.add({
    name: "slow",
    intervalMs: 1,
    run: async () => {
      runs++;
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      entered?.();
      await blocked;
      concurrent--;
    },
  });
  runner.start();
  await inside;
  let stopped = false;
  const stopping = runner.stop().then(() => {
    stopped = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(stopped, false, "stop waits for the run in flight");
  release?.();
  await stopping;
  assert.equal(runs, 1, "nothing is scheduled after stop");
  assert.equal(maxConcurrent, 1);
  assert.deepEqual(errors, []);
});

test("a failing run is reported and the job keeps its schedule", async () => {
  const errors: string[] = [];
  const runner = new JobRunner((name) => errors.push(name));
  let runs = 0;
  let twice: (() => void) | undefined;
  const ranTwice = new Promise<void>((resolve) => {
    twice = resolve;
  });
  runner.add({
    name: "flaky",
    intervalMs: 1,
    run: async () => {
      runs++;
      if (runs === 2) twice?.();
      throw new Error("boom");
    },
  });
  runner.start();
  await ranTwice;
  await runner.stop();
  assert.ok(errors.length >= 1);
  assert.ok(errors.every((name) => name === "flaky"));
});
