import type { Executor } from "./transactions.js";

/**
 * Advances a named counter by `by` and returns its new value (the counter starts at 0), in one
 * atomic statement: concurrent callers, in any process, receive disjoint ranges.
 */
export async function advanceCounter(db: Executor, name: string, by: number): Promise<number> {
  const row = await db
    .insertInto("counters")
    .values({ name, value: by })
    .onConflict((oc) =>
      oc.column("name").doUpdateSet((eb) => ({ value: eb("counters.value", "+", eb.ref("excluded.value")) })),
    )
    .returning("value")
    .executeTakeFirstOrThrow();
  return row.value;
}
