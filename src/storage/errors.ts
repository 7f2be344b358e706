// Driver errors, recognised here so that nothing above storage knows the drivers' codes. What
// they mean above storage (a failure kind, a commit whose outcome is unknown) is core's
// (core/storage-failures.ts); the error is named from here too for storage's own writes.

import {
  CommitOutcomeUnknownError,
  isCommitOutcomeUnknown,
  type StorageFailure,
} from "../core/storage-failures.js";
import { NEGATIVE_BALANCE_REFUSAL } from "./migrations/0019-balances-not-negative.js";
import { UNVERIFIED_NUMBER_REFUSAL } from "./migrations/0037-numbers-for-verified.js";

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

/**
 * A unique violation of one particular constraint: PostgreSQL names the index; SQLite names
 * the columns (`UNIQUE constraint failed: accounts.business_id, accounts.email`).
 */
export function isUniqueViolationOf(error: unknown, constraint: { index: string; columns: string }): boolean {
  if (!isUniqueViolation(error)) return false;
  const named = (error as { constraint?: unknown }).constraint;
  if (named === constraint.index) return true;
  return error instanceof Error && error.message.endsWith(constraint.columns);
}

/**
 * The database refused a write that would take a ledger balance of the kinds `available` or
 * `pending` below zero (migration 0019): PostgreSQL's CHECK, SQLite's trigger.
 */
export function isNegativeBalanceRefusal(error: unknown): boolean {
  const code = codeOf(error);
  if (code === "23514") return (error as { constraint?: unknown }).constraint === NEGATIVE_BALANCE_REFUSAL;
  return (
    code === "SQLITE_CONSTRAINT_TRIGGER" &&
    error instanceof Error &&
    error.message.startsWith(`${NEGATIVE_BALANCE_REFUSAL}:`)
  );
}

/** The database refused an account number for a business that is not verified (migration 0037). */
export function isUnverifiedNumberRefusal(error: unknown): boolean {
  const code = codeOf(error);
  return (
    (code === "P0001" || code === "SQLITE_CONSTRAINT_TRIGGER") &&
    error instanceof Error &&
    error.message.startsWith(`${UNVERIFIED_NUMBER_REFUSAL}:`)
  );
}

/** SQLite's write lock stayed taken past the busy timeout. */
export function isBusy(error: unknown): boolean {
  const code = codeOf(error);
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || code === "SQLITE_BUSY_SNAPSHOT";
}

export { CommitOutcomeUnknownError };

const CONNECTION_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * The connection itself failed (refused, reset, closed by the server or the network), as
 * opposed to the server answering with an error: whatever was in flight may have happened.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  if (code && (CONNECTION_ERRORS.has(code) || /^(08|57P)/.test(code))) return true;
  const message = error instanceof Error ? error.message : "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}

export function storageFailure(error: unknown): StorageFailure | undefined {
  if (isCommitOutcomeUnknown(error) || isBusy(error) || isConnectionLost(error)) return "unreachable";
  const code = codeOf(error);
  // SQLite: disk full, I/O errors (extended codes SQLITE_IOERR_*), a read-only file or directory.
  // PostgreSQL: 25006 (read-only transaction: a replica, or default_transaction_read_only).
  if (code && /^(SQLITE_FULL|SQLITE_IOERR|SQLITE_READONLY|25006$|53)/.test(code)) return "refusing-writes";
  // PostgreSQL 57014: a statement timeout or cancellation, the database too slow to answer now.
  return code === "57014" ? "unreachable" : undefined;
}

/** The database cannot serve the request right now (see storageFailure). */
export function isStorageUnavailable(error: unknown): boolean {
  return storageFailure(error) !== undefined;
}
