import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { WriteBatches } from "./write-batches.js";

/** An item whose write fails alone when `refuse` names it, as a row a constraint refuses would. */
interface Item {
  id: string;
  value: number;
}

const refused = Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" });
const lost = Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });

/** A store that records each statement it is sent: a batch ("many") or one item alone ("one"). */
function store(options: { refuse?: string; manyFails?: Error } = {}) {
  const statements: Array<{ kind: "many" | "one"; ids: string[] }> = [];
  const write = (item: Item) => {
    if (item.id === options.refuse) throw refused;
    return item.value * 10;
  };
  const batches = new WriteBatches<Item, number>({
    many: async (items) => {
      statements.push({ kind: "many", ids: items.map((i) => i.id) });
      if (options.manyFails) throw options.manyFails;
      // A statement is all or nothing: one refused row refuses the statement.
      return items.map(write);
    },
    one: async (item) => {
      statements.push({ kind: "one", ids: [item.id] });
      return write(item);
    },
    identity: (item) => item.id,
    max: 4,
  });
  return { batches, statements };
}

const items = (...ids: string[]) => ids.map((id, i) => ({ id, value: i + 1 }));

describe("WriteBatches (PostgreSQL's small writes batched)", () => {
  test("writes submitted together go as one statement, at most max at a time; each gets its own result", async () => {
    const { batches, statements } = store();
    const results = await Promise.all(items("a", "b", "c", "d", "e").map((i) => batches.submit(i)));
    assert.deepEqual(results, [10, 20, 30, 40, 50]);
    assert.deepEqual(statements, [
      { kind: "many", ids: ["a", "b", "c", "d"] },
      { kind: "one", ids: ["e"] },
    ]);
  });

  test("two writes of one row never share a statement: the second goes in the next", async () => {
    const { batches, statements } = store();
    await Promise.all([
      batches.submit({ id: "a", value: 1 }),
      batches.submit({ id: "a", value: 2 }),
      batches.submit({ id: "b", value: 3 }),
    ]);
    assert.deepEqual(statements, [
      { kind: "many", ids: ["a", "b"] },
      { kind: "one", ids: ["a"] },
    ]);
  });

  test("a statement refused for one row: the batch is written again one at a time, and only that row fails", async () => {
    const { batches, statements } = store({ refuse: "b" });
    const outcomes = await Promise.allSettled(items("a", "b", "c").map((i) => batches.submit(i)));
    assert.deepEqual(
      outcomes.map((o) => (o.status === "fulfilled" ? o.value : o.reason)),
      [10, refused, 30],
    );
    assert.deepEqual(
      statements.map((s) => s.kind),
      ["many", "one", "one", "one"],
    );
  });

  test("a database that cannot answer fails every write of the batch with its error, and none is tried again", async () => {
    const { batches, statements } = store({ manyFails: lost });
    const outcomes = await Promise.allSettled(items("a", "b", "c").map((i) => batches.submit(i)));
    assert.deepEqual(
      outcomes.map((o) => o.status === "rejected" && o.reason),
      [lost, lost, lost],
    );
    assert.deepEqual(statements, [{ kind: "many", ids: ["a", "b", "c"] }]);
  });

  test("a write alone that fails fails alone", async () => {
    const { batches } = store({ refuse: "a" });
    await assert.rejects(batches.submit({ id: "a", value: 1 }), refused);
    assert.equal(await batches.submit({ id: "b", value: 2 }), 20);
  });
});
