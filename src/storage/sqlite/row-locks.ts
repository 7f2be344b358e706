import type { RowLocks } from "../../core/row-locks.js";

/** SQLite: a write transaction runs alone (BEGIN IMMEDIATE), so what it reads is its own already. */
export const sqliteRowLocks: RowLocks = {
  locking: (query) => query,
};
