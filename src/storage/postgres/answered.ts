import type { Executor } from "../executor.js";
import { namedSql } from "../named-sql.js";
import type { AnswerRecords } from "../unit-of-work.js";

/**
 * PostgreSQL's one spelling of completing request records: a part of a write statement that
 * stores each record's answer, given as arrays (recordsValues), so that an effect and its answer
 * are one round trip; alone, COMPLETE_RECORDS. `onlyIf`, a condition on the record `k`, completes
 * a record only with its owner's effect (an account batch's record, when its account was created).
 */
export const answeredCte = (onlyIf?: string) => `answered as (
  update request_records r set state = 'done', status_code = k.status, response = k.response
  from unnest(@record_kinds::text[], @record_keys::text[], @record_businesses::text[],
              @record_statuses::integer[], @record_responses::text[], @record_owners::text[])
    as k(kind, key, business_id, status, response, owner)
  where r.business_id = k.business_id and r.kind = k.kind and r.key = k.key${onlyIf ? ` and ${onlyIf}` : ""}
)`;

/** The records a statement completes, whatever its effect. */
export const ANSWERED = answeredCte();

/** Completing records, and nothing else. */
export const COMPLETE_RECORDS = `with ${ANSWERED} select 1`;

/** answeredCte's parameters: each answer's records (none for an undefined answer), with its owner. */
export function recordsValues(
  answers: ReadonlyArray<{ answer?: AnswerRecords | undefined; owner?: string }>,
) {
  const records = answers.flatMap(({ answer, owner }) =>
    answer ? answer.kinds.map((kind, i) => ({ kind, i, answer, owner: owner ?? null })) : [],
  );
  return {
    record_kinds: records.map((r) => r.kind),
    record_keys: records.map((r) => r.answer.keys[r.i]),
    record_businesses: records.map((r) => r.answer.businessIds[r.i]),
    record_statuses: records.map((r) => r.answer.statusCode),
    record_responses: records.map((r) => r.answer.response),
    record_owners: records.map((r) => r.owner),
  };
}

/** Completes `answer`'s records in a query builder's transaction (or alone). */
export async function completeOnPostgres(db: Executor, answer: AnswerRecords): Promise<void> {
  await namedSql(COMPLETE_RECORDS, recordsValues([{ answer }])).execute(db);
}
