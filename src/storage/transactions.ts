import { AsyncLocalStorage } from "node:async_hooks";
import type SqliteDatabase from "better-sqlite3";
import { PostgresAdapter, sql } from "kysely";
import type pg from "pg";
import type { Storage } from "./database.js";
import { CommitOutcomeUnknownError, isConnectionLost } from "./errors.js";
import type { Executor } from "./executor.js";
import type { GroupCommit } from "./group-commit.js";
import { completeRecord, type RecordId, recordsNow } from "./request-record-repository.js";

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
  const begin = sql.raw(storage.beginWrite);
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
  /** What of the result the unit of work answers with (default: the whole result). */
  answer?: (result: T) => unknown;
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
  return unit.storeAnswer(options.answer ? options.answer(result) : result);
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
  businessIds: string[];
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
  const answer = stored && answerRecords(stored);
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

const answerRecords = (stored: ReturnType<AnswerToStore>): AnswerRecords => ({
  statusCode: stored.statusCode,
  response: stored.response,
  kinds: stored.claims.map((claim) => claim.kind),
  keys: stored.claims.map((claim) => claim.key),
  businessIds: stored.claims.map((claim) => claim.business_id),
});

/**
 * PostgreSQL: runs `work` in a transaction on one pooled client, for the hot path's named
 * statements (unnamed: nothing outlives the transaction, so a transaction pooler may sit between). `work` may fold the unit of work's
 * answer into its last statement: `answerFor(result)` gives the records to complete (undefined
 * when there are none, or the result does not answer). If it does not, they are completed here,
 * before COMMIT. A `CommitThenRefuse` commits and then throws its refusal; a connection lost
 * during COMMIT leaves the outcome unknown, and says so.
 */
export async function clientTransaction<T>(
  storage: Storage,
  work: (client: pg.PoolClient, answerFor: (result: T) => AnswerRecords | undefined) => Promise<T>,
  options: TransactionOptions<T> = {},
): Promise<T> {
  const unit = enterUnitOfWork();
  let folded = false;
  const answerFor = (result: T) => {
    folded = true;
    const stored = unit && answerOf(unit, result, options);
    return stored && answerRecords(stored);
  };
  if (!storage.pool) throw new Error("clientTransaction is for PostgreSQL");
  const client = await storage.pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(storage.beginWrite);
    let result: T;
    try {
      result = await work(client, answerFor);
      const answer = unit && !folded ? answerOf(unit, result, options) : undefined;
      for (const claim of answer?.claims ?? []) {
        await client.query({
          text: COMPLETE_RECORD,
          values: [answer?.statusCode, answer?.response, claim.business_id, claim.kind, claim.key],
        });
      }
    } catch (error) {
      if (error instanceof CommitThenRefuse) {
        await commitClient(client);
        throw error.refusal;
      }
      await client.query("rollback").catch(() => {});
      throw error;
    }
    await commitClient(client);
    return result;
  } catch (error) {
    if (isConnectionLost(error) || error instanceof CommitOutcomeUnknownError) broken = error as Error;
    throw error;
  } finally {
    // A connection that broke is destroyed, not handed to the next request.
    client.release(broken);
  }
}

const COMPLETE_RECORD = `update request_records set state = 'done', status_code = $1, response = $2
  where business_id = $3 and kind = $4 and key = $5`;

async function commitClient(client: pg.PoolClient): Promise<void> {
  try {
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    if (isConnectionLost(error)) throw new CommitOutcomeUnknownError(error);
    throw error;
  }
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
