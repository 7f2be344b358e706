import type { Executor } from "./executor.js";

export async function getSetting(db: Executor, name: string): Promise<string | undefined> {
  const row = await db.selectFrom("settings").select("value").where("name", "=", name).executeTakeFirst();
  return row?.value;
}

/** Stores the value unless the setting exists; either way returns the stored value (first writer wins). */
export async function getOrInsertSetting(
  db: Executor,
  name: string,
  value: string,
  now: string,
): Promise<string> {
  await db
    .insertInto("settings")
    .values({ name, value, created_at: now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const stored = await getSetting(db, name);
  if (stored === undefined) throw new Error(`setting ${name} vanished after insert`);
  return stored;
}

/** Every setting, for re-sealing the sealed ones under a new master key. */
export function allSettings(db: Executor): Promise<Array<{ name: string; value: string }>> {
  return db.selectFrom("settings").select(["name", "value"]).execute();
}

/** Replaces a setting's value (it must exist). */
export async function replaceSetting(db: Executor, name: string, value: string): Promise<void> {
  await db.updateTable("settings").set({ value }).where("name", "=", name).execute();
}
