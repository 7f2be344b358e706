import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KeyedBatches } from "./keyed-batches.js";

/** A batch runner that records each batch and finishes when told to. */
function recorder() {
  const batches: Array<{ key: string; items: number[]; finish: () => void; fail: (error: Error) => void }> =
    [];
  const run = (key: string, items: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push({ key, items, finish: () => resolve(items.map((n) => n * 10)), fail: reject });
    });
  return { batches, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("KeyedBatches", () => {
  test("what arrives in one turn is one batch; what arrives while it runs is the next", async () => {
    const { batches, run } = recorder();
    const queue = new KeyedBatches(run, { max: 100 });
    const first = [1, 2, 3].map((n) => queue.submit("a", n));
    await turn();
    assert.deepEqual(
      batches.map((b) => b.items),
      [[1, 2, 3]],
    );
    const second = [4, 5].map((n) => queue.submit("a", n));
    await turn();
    assert.equal(batches.length, 1, "one batch per key at a time");
    batches[0]?.finish();
    assert.deepEqual(await Promise.all(first), [10, 20, 30], "each item gets its own result");
    await turn();
    assert.deepEqual(batches[1]?.items, [4, 5]);
    batches[1]?.finish();
    assert.deepEqual(await Promise.all(second), [40, 50]);
  });

  test("keys run side by side", async () => {
    const { batches, run } = recorder();
    const queue = new KeyedBatches(run, { max: 100 });
    const a = queue.submit("a", 1);
    const b = queue.submit("b", 2);
    await turn();
    assert.deepEqual(
      batches.map((batch) => [batch.key, batch.items]),
      [
        ["a", [1]],
        ["b", [2]],
      ],
    );
    for (const batch of batches) batch.finish();
    assert.deepEqual(await Promise.all([a, b]), [10, 20]);
  });

  test("a batch takes at most max items, and none that fits refuses; they wait for the next", async () => {
    const { batches, run } = recorder();
    const queue = new KeyedBatches(run, { max: 3, fits: (batch, item) => !batch.includes(item) });
    const results = [1, 1, 2, 3, 4, 5].map((n) => queue.submit("a", n));
    await turn();
    assert.deepEqual(batches[0]?.items, [1, 2, 3], "the second 1 and everything past 3 items wait");
    batches[0]?.finish();
    await turn();
    assert.deepEqual(batches[1]?.items, [1, 4, 5]);
    batches[1]?.finish();
    assert.deepEqual(await Promise.all(results), [10, 10, 20, 30, 40, 50]);
  });

  test("at most maxRunning batches at once; a key waiting for a slot gathers a bigger batch", async () => {
    const { batches, run } = recorder();
    const queue = new KeyedBatches(run, { max: 100, maxRunning: 1 });
    const first = queue.submit("a", 1);
    const second = [queue.submit("b", 2)];
    await turn();
    assert.deepEqual(
      batches.map((b) => b.key),
      ["a"],
      "b waits for a's slot",
    );
    second.push(queue.submit("b", 3));
    await turn();
    batches[0]?.finish();
    assert.equal(await first, 10);
    await turn();
    assert.deepEqual(batches[1]?.items, [2, 3], "what came meanwhile joins the waiting batch");
    batches[1]?.finish();
    assert.deepEqual(await Promise.all(second), [20, 30]);
  });

  test("a failed batch fails its own items only, and the key goes on", async () => {
    const { batches, run } = recorder();
    const queue = new KeyedBatches(run, { max: 100 });
    const failing = [queue.submit("a", 1), queue.submit("a", 2)];
    await turn();
    const later = queue.submit("a", 3);
    batches[0]?.fail(new Error("the statement failed"));
    for (const result of failing) await assert.rejects(result, /the statement failed/);
    await turn();
    batches[1]?.finish();
    assert.equal(await later, 30);
  });
});
