// Driver errors, recognised here so that nothing above storage knows the drivers' codes.

interface DriverError {
  code?: unknown;
  errno?: unknown;
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as DriverError | null)?.code;
  return typeof code === "string" ? code : undefined;
};

/** A UNIQUE or PRIMARY KEY constraint refused a row (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

/** SQLite's write lock stayed taken past the busy timeout. */
export function isBusy(error: unknown): boolean {
  const code = codeOf(error);
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || code === "SQLITE_BUSY_SNAPSHOT";
}

const CONNECTION_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * The database cannot answer right now (down, unreachable, shutting down, overloaded) as
 * opposed to refusing the query: worth a 503 and a retry, not a 500.
 */
export function isStorageUnavailable(error: unknown): boolean {
  if (isBusy(error)) return true;
  const code = codeOf(error);
  if (code && CONNECTION_ERRORS.has(code)) return true;
  // PostgreSQL classes 08 (connection), 53 (resources), 57P (operator intervention: shutdown),
  // and 57014 (statement timeout or cancellation: the database is too slow to answer now).
  if (code && /^(08|53|57P|57014$)/.test(code)) return true;
  const message = error instanceof Error ? error.message : "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}
