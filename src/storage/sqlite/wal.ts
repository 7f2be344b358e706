import type SqliteDatabase from "better-sqlite3";

/**
 * Puts a connection's database in WAL mode. The switch from a new file's rollback journal takes
 * an exclusive lock after reading the header under a shared one, and SQLite answers SQLITE_BUSY
 * at once, without calling the busy handler, when another connection holds a write lock then
 * (waiting could deadlock). Processes starting together on a new file (a server and the CLI,
 * several servers) meet exactly that: so the switch is tried again until `timeoutMs` has passed.
 * Once the file is in WAL mode, the setting is kept in the file and the switch takes no lock.
 */
export function useWal(connection: SqliteDatabase.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      connection.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(PAUSE, 0, 0, 5);
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function isBusy(error: unknown): boolean {
  return (error as { code?: unknown }).code === "SQLITE_BUSY";
}
