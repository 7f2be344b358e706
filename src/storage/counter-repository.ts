import type { Executor } from "./executor.js";

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

/** A counter's value (0 when it was never advanced). */
export async function readCounter(db: Executor, name: string): Promise<number> {
  const row = await db.selectFrom("counters").select("value").where("name", "=", name).executeTakeFirst();
  return Number(row?.value ?? 0);
}

/**
 * Advanced in the same transaction as every change to what authentication reads (a key's
 * status or signature version, a business's verification status), so that every process can
 * tell cheaply whether its cached credentials are still good.
 */
export const CREDENTIALS_EPOCH = "credentials_epoch";
