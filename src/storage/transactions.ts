import { AsyncLocalStorage } from "node:async_hooks";
import type SqliteDatabase from "better-sqlite3";
import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { Storage } from "./database.js";
import { CommitOutcomeUnknownError, isConnectionLost } from "./errors.js";
import type { GroupCommit } from "./group-commit.js";
import { completeRecord, type RecordId, recordsNow } from "./request-record-repository.js";
import type { Database } from "./schema.js";

/** A database handle a repository may run on: the database itself or a transaction. */
export type Executor = Kysely<Database>;

/** True when the executor speaks a dialect with row locks (`SELECT ... FOR UPDATE`): PostgreSQL. */
export function hasRowLocks(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The answer a request stores for its keys, computed from what its write produced. */
export type AnswerToStore = (result: unknown) => { claims: RecordId[]; statusCode: number; response: string };

interface UnitOfWork {
  storeAnswer: AnswerToStore;
  /** The bank reference claimed with the request's records, kept across its retries. */
  reference: string | undefined;
  /** Set by the write transaction that stored the answer: there is only one. */
  answered: boolean;
}

const unitOfWork = new AsyncLocalStorage<UnitOfWork>();

/**
 * Runs `work` (a domain call) as one unit of work: the one write transaction it makes also
 * stores the request's answer under its replay and Idempotency-Key records, just before COMMIT,
 * so the effect and the memory of it commit or roll back together. The domain's signatures
 * know nothing of it; a unit of work that tried a second write transaction is a bug, refused.
 */
export function inUnitOfWork<T>(
  storeAnswer: AnswerToStore,
  work: () => Promise<T>,
  reference?: string,
): Promise<T> {
  return unitOfWork.run({ storeAnswer, reference, answered: false }, work);
}

/**
 * The reference to send to the bank for the unit of work in progress: the one persisted with
 * the request's claim (so a retry of the request sends the same), or undefined outside one.
 */
export function unitOfWorkReference(): string | undefined {
  return unitOfWork.getStore()?.reference;
}

/**
 * Thrown by a transaction's work to refuse while keeping what it wrote (a refusal that must
 * leave a trace, such as a conflict record): the transaction commits, without storing a unit of
 * work's answer, and then `refusal` is thrown to the caller.
 */
export class CommitThenRefuse extends Error {
  constructor(readonly refusal: Error) {
    super(refusal.message);
    this.name = "CommitThenRefuse";
  }
}

/**
 * Runs `work` in a transaction meant to read and then write. On SQLite it starts with
 * BEGIN IMMEDIATE, taking the write lock up front, so two processes cannot both read and then
 * fail to upgrade; on PostgreSQL, row locks taken by the work itself (SELECT ... FOR UPDATE,
 * UPDATE) order concurrent writers.
 *
 * When the connection to PostgreSQL is lost during COMMIT, the outcome is unknown: that is
 * thrown as CommitOutcomeUnknownError, never as an ordinary failure. (A failed COMMIT on
 * SQLite, in process, is always a rollback.)
 */
export async function writeTransaction<T>(
  storage: Storage,
  work: (trx: Executor) => Promise<T>,
  options: TransactionOptions<T> = {},
): Promise<T> {
  const begin = storage.dialect === "postgres" ? sql`begin` : sql`begin immediate`;
  const unit = enterUnitOfWork();
  return storage.db.connection().execute(async (connection) => {
    await begin.execute(connection);
    let result: T;
    try {
      result = await work(connection);
      const answer = unit && answerOf(unit, result, options);
      if (answer) {
        for (const claim of answer.claims) {
          await completeRecord(connection, claim, answer.statusCode, answer.response);
        }
      }
    } catch (error) {
      if (error instanceof CommitThenRefuse) {
        await commit(storage, connection);
        throw error.refusal;
      }
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
    await commit(storage, connection);
    return result;
  });
}

export interface TransactionOptions<T> {
  /**
   * Whether this result is the unit of work's answer (default: always). A transaction that
   * found it had nothing to do (and wrote nothing) answers false, and the unit of work may then
   * make the write transaction that does answer.
   */
  answers?: (result: T) => boolean;
}

/** The unit of work in progress, checked to have made no answering write transaction yet. */
function enterUnitOfWork(): UnitOfWork | undefined {
  const unit = unitOfWork.getStore();
  if (unit?.answered) throw new Error("a unit of work makes one write transaction");
  return unit;
}

/** The answer to store with `result`, if this transaction answers for the unit of work. */
function answerOf<T>(unit: UnitOfWork, result: T, options: TransactionOptions<T>) {
  if (!(options.answers?.(result) ?? true)) return undefined;
  if (unit.answered) throw new Error("a unit of work makes one write transaction");
  unit.answered = true;
  return unit.storeAnswer(result);
}

/**
 * Runs a synchronous write in SQLite's next group commit (see group-commit.ts) as a unit of
 * work's write transaction: the answer is stored for the request's keys inside the write's
 * own savepoint, so the effect and its answer commit, or roll back, together.
 */
export function groupWrite<T>(
  group: GroupCommit,
  write: (db: SqliteDatabase.Database) => T,
  options: TransactionOptions<T> = {},
): Promise<T> {
  const unit = enterUnitOfWork();
  return group.run((db) => {
    const result = write(db);
    const answer = unit && answerOf(unit, result, options);
    if (answer) {
      for (const claim of answer.claims) recordsNow.complete(db, claim, answer.statusCode, answer.response);
    }
    return result;
  });
}

/** The request records a single-statement write completes with its effect, and the answer. */
export interface AnswerRecords {
  statusCode: number;
  response: string;
  kinds: string[];
  keys: string[];
}

/**
 * Runs one autocommitted statement (PostgreSQL: one round trip) as a unit of work's write
 * transaction: `run` gets the answer to store for `result` with the request's records, and says
 * whether it made the effect (false: it wrote nothing, and the unit of work may write later).
 * A connection lost before the statement's answer leaves its outcome unknown, and says so.
 */
export async function statementWrite<T>(
  result: T,
  run: (answer: AnswerRecords | undefined) => Promise<boolean>,
): Promise<T | undefined> {
  const unit = enterUnitOfWork();
  const stored = unit?.storeAnswer(result);
  const answer = stored && {
    statusCode: stored.statusCode,
    response: stored.response,
    kinds: stored.claims.map((claim) => claim.kind),
    keys: stored.claims.map((claim) => claim.key),
  };
  let wrote: boolean;
  try {
    wrote = await run(answer);
  } catch (error) {
    if (isConnectionLost(error)) throw new CommitOutcomeUnknownError(error);
    throw error;
  }
  if (!wrote) return undefined;
  if (unit) unit.answered = true;
  return result;
}

async function commit(storage: Storage, connection: Executor): Promise<void> {
  try {
    await sql`commit`.execute(connection);
  } catch (error) {
    await sql`rollback`.execute(connection).catch(() => {});
    if (storage.dialect === "postgres" && isConnectionLost(error)) throw new CommitOutcomeUnknownError(error);
    throw error;
  }
}
