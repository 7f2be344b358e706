import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";

/**
 * Creates a directory (and its parents) readable by the service's user alone, whatever the
 * umask. A directory that already exists is left as the operator made it.
 */
export function createPrivateDirectory(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * Makes `file` (created empty if absent) and its SQLite companions (`-wal`, `-shm`, `-journal`)
 * readable and writable by the service's user alone, whatever the umask. SQLite creates the
 * companions with the database file's own permissions, so they stay private after this too.
 */
export function makeDatabaseFilePrivate(file: string): void {
  closeSync(openSync(file, "a", 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    if (existsSync(path)) chmodSync(path, 0o600);
  }
}
