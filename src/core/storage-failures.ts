// What storage's failures mean above it, declared below every floor that needs them: storage
// (storage/errors.ts) recognises the drivers' codes and throws or classifies as these say, and
// the fronts act on them (a 503, the health check, a request's records left as they are)
// without knowing a driver.

/**
 * Why the database cannot serve a request right now, as opposed to refusing the query:
 * `unreachable` (down, unreachable, shutting down, overloaded, locked) or `refusing-writes`
 * (disk full, I/O errors, read-only). Either is worth a 503 and a retry, not a 500.
 */
export type StorageFailure = "unreachable" | "refusing-writes";

/**
 * The connection was lost while COMMIT was on its way: the transaction may or may not have
 * committed, and nobody can tell yet. Whatever it claimed must be left as it is (never undone
 * as if nothing happened): a retry finds out from the database.
 */
export class CommitOutcomeUnknownError extends Error {
  constructor(cause: unknown) {
    super("the connection was lost during COMMIT: the transaction may have committed", { cause });
    this.name = "CommitOutcomeUnknownError";
  }
}

export const isCommitOutcomeUnknown = (error: unknown): error is CommitOutcomeUnknownError =>
  error instanceof CommitOutcomeUnknownError;
