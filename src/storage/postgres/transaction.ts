import type pg from "pg";
import { CommitOutcomeUnknownError, isConnectionLost } from "../errors.js";
import {
  type AnswerOptions,
  type AnswerRecords,
  recordsOf,
  refuseAnswered,
  type UnitOfWork,
} from "../unit-of-work.js";
import { COMPLETE_RECORDS, recordsValues } from "./answered.js";
import { named } from "./named.js";

/** The pool a PostgreSQL store writes on, and how a write transaction begins (see postgres-dialect.ts). */
export interface PostgresWriter {
  pool: pg.Pool;
  beginWrite: string;
}

/** What `work` is given in clientTransaction. */
export interface ClientWork<T> {
  client: pg.PoolClient;
  /**
   * The unit of work's records to complete for `result`, to fold into the last statement
   * (undefined when there is no unit, or the result does not answer).
   */
  answerFor(result: T): AnswerRecords | undefined;
  /** The results of the opening's statements, sent in BEGIN's own message, in order. */
  opened: pg.QueryResult[];
  /**
   * Sends the last statement (its values written in: inline.ts) and COMMIT in one message, so the
   * transaction's end costs no round trip of its own; nothing may be sent after it, and the
   * answer must have been folded in (`answerFor`) before. A connection lost in it leaves the
   * outcome unknown, and says so; a refused statement commits nothing.
   */
  commitWith(statement: string): Promise<pg.QueryResult>;
}

/**
 * Runs `work` in a transaction on one pooled client, for the hot path's statements (unnamed:
 * nothing outlives the transaction, so a transaction pooler may sit between). `work` may fold the
 * unit of work's answer into its last statement (`answerFor`). If it does not, the records are
 * completed here, before COMMIT. A connection lost during COMMIT leaves the outcome unknown, and
 * says so. `opening`, statements with their values written in (inline.ts), is sent with BEGIN, so
 * the transaction's first reads cost no round trip of their own.
 */
export async function clientTransaction<T>(
  writer: PostgresWriter,
  unit: UnitOfWork | undefined,
  work: (context: ClientWork<T>) => Promise<T>,
  options: AnswerOptions<T> = {},
  opening: readonly string[] = [],
): Promise<T> {
  if (unit?.answered) refuseAnswered(unit);
  let folded = false;
  let committed = false;
  const client = await writer.pool.connect();
  const context: ClientWork<T> = {
    client,
    answerFor: (result) => {
      folded = true;
      return recordsOf(unit, result, options);
    },
    opened: [],
    async commitWith(statement) {
      if (unit && !folded) throw new Error("commitWith: the answer was not folded into the statement");
      committed = true;
      try {
        return resultsOf(await client.query(`${statement}; commit`))[0] as pg.QueryResult;
      } catch (error) {
        if (isConnectionLost(error)) throw new CommitOutcomeUnknownError(error);
        throw error;
      }
    },
  };
  let broken: Error | undefined;
  try {
    let result: T;
    try {
      const begun = resultsOf(await client.query([writer.beginWrite, ...opening].join("; ")));
      context.opened = begun.slice(begun.length - opening.length);
      result = await work(context);
      if (!committed) {
        const answer = folded ? undefined : recordsOf(unit, result, options);
        if (answer) await client.query(completeRecords.query(recordsValues([{ answer }])));
      }
    } catch (error) {
      await client.query("rollback").catch(() => {});
      throw error;
    }
    if (!committed) await commitClient(client);
    return result;
  } catch (error) {
    if (isConnectionLost(error) || error instanceof CommitOutcomeUnknownError) broken = error as Error;
    throw error;
  } finally {
    // A connection that broke is destroyed, not handed to the next request.
    client.release(broken);
  }
}

/** A simple query's results: node-postgres answers an array for several statements, one for one. */
export const resultsOf = (results: pg.QueryResult | pg.QueryResult[]): pg.QueryResult[] =>
  Array.isArray(results) ? results : [results];

const completeRecords = named(COMPLETE_RECORDS);

async function commitClient(client: pg.PoolClient): Promise<void> {
  try {
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    if (isConnectionLost(error)) throw new CommitOutcomeUnknownError(error);
    throw error;
  }
}

/**
 * Runs one autocommitted statement (one round trip) as a unit of work's write: `run` gets the
 * answer to store for `result` with the request's records, and says whether it made the effect
 * (false: it wrote nothing, and the unit of work may write later). A connection lost before the
 * statement's answer leaves its outcome unknown, and says so.
 */
export async function statementWrite<T>(
  unit: UnitOfWork | undefined,
  result: T,
  run: (answer: AnswerRecords | undefined) => Promise<boolean>,
): Promise<T | undefined> {
  const answer = unit?.tentative(result);
  let wrote: boolean;
  try {
    wrote = await run(answer);
  } catch (error) {
    if (isConnectionLost(error)) throw new CommitOutcomeUnknownError(error);
    throw error;
  }
  if (!wrote) return undefined;
  unit?.taken();
  return result;
}
