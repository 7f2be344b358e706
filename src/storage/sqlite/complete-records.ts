import type { Executor } from "../executor.js";
import { namedSql } from "../named-sql.js";
import type { AnswerRecords } from "../unit-of-work.js";

/**
 * SQLite's one spelling of completing a request record: its answer stored, inside the write that
 * made its effect (the group commit's, or a query builder's transaction).
 */
export const COMPLETE_RECORD = `update request_records set state = 'done', status_code = @status_code, response = @response
  where business_id = @business_id and kind = @kind and key = @key`;

/** COMPLETE_RECORD's values for each of an answer's records (SQLite completes them one by one). */
export const completeRecordRows = (answer: AnswerRecords) =>
  answer.kinds.map((kind, i) => ({
    kind,
    key: answer.keys[i],
    business_id: answer.businessIds[i],
    status_code: answer.statusCode,
    response: answer.response,
  }));

/** Completes `answer`'s records in a query builder's transaction (or alone), as the group commit does. */
export async function completeOnSqlite(db: Executor, answer: AnswerRecords): Promise<void> {
  for (const row of completeRecordRows(answer)) await namedSql(COMPLETE_RECORD, row).execute(db);
}
