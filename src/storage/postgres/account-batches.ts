import type pg from "pg";
import { isDuplicatePermanent } from "../account-repository.js";
import { KeyedBatches } from "../keyed-batches.js";
import { ACCOUNT_COLUMNS, type AccountToCreate, type NumberToRecord } from "../schema.js";
import type { AnswerRecords, UnitOfWork } from "../unit-of-work.js";
import { named } from "./named.js";
import { statementWrite } from "./transaction.js";

/** One account to create on PostgreSQL, with its first number and the answer its request stores. */
interface AccountToInsert {
  account: AccountToCreate;
  number: NumberToRecord;
  answer: AnswerRecords | undefined;
}

/** The most accounts one statement creates. */
const MAX_BATCH = 64;

const batchesOf = new WeakMap<pg.Pool, KeyedBatches<AccountToInsert, boolean>>();

/**
 * PostgreSQL: creates the account with its first number, the request's answer included, in one
 * autocommitted statement, batched with the business's other creates in flight (KeyedBatches):
 * the statement that creates a batch's accounts updates the business row once, however many
 * there are, so one business's generates no longer take turns on that row's lock one commit at a
 * time. Resolves to `answer`, or to undefined when the business already has a permanent account
 * for the email (nothing written, no answer stored: the caller re-issues). Two requests for one
 * new email never share a batch; two racing in different processes meet at the partial unique
 * index, and the loser re-issues.
 */
export function createOnPostgres<T>(
  pool: pg.Pool,
  account: AccountToCreate,
  number: NumberToRecord,
  answer: T,
  unit: UnitOfWork | undefined,
): Promise<T | undefined> {
  let batches = batchesOf.get(pool);
  if (!batches) {
    batches = new KeyedBatches((_, items) => insertBatch(pool, items), {
      max: MAX_BATCH,
      // A batch holds a pooled connection through its commit; the requests queued behind it
      // need connections too (their claim, the bank's account). Measured with a pool of 10 and
      // ten businesses: no limit 608 req/s, a third of the pool 797, one 622 (docs/performance.md).
      maxRunning: Math.max(1, Math.floor((pool.options.max ?? 10) / 3)),
      fits: (batch, item) =>
        item.account.kind !== "permanent" ||
        !batch.some(
          (other) => other.account.kind === "permanent" && other.account.email === item.account.email,
        ),
    });
    batchesOf.set(pool, batches);
  }
  const queue = batches;
  return statementWrite(unit, answer, (stored) =>
    queue.submit(account.business_id, { account, number, answer: stored }),
  );
}

/**
 * One statement for the batch; true for each account it created. A permanent account refused by
 * the unique index (another process created the email's first) fails the whole statement: the
 * batch is then created one account at a time, and only that one is not created.
 */
async function insertBatch(pool: pg.Pool, items: readonly AccountToInsert[]): Promise<boolean[]> {
  try {
    return await insertAll(pool, items);
  } catch (error) {
    if (!isDuplicatePermanent(error)) throw error;
    if (items.length === 1) return [false];
  }
  const created: boolean[] = [];
  for (const item of items) created.push(...(await insertBatch(pool, [item])));
  return created;
}

async function insertAll(pool: pg.Pool, items: readonly AccountToInsert[]): Promise<boolean[]> {
  const column = <K extends keyof AccountToCreate>(key: K) => items.map((item) => item.account[key] ?? null);
  const records = items.flatMap((item) =>
    (item.answer?.kinds ?? []).map((kind, i) => ({
      account: item.account.id,
      kind,
      key: item.answer?.keys[i],
      business: item.answer?.businessIds[i],
      status: item.answer?.statusCode,
      response: item.answer?.response,
    })),
  );
  const result = await pool.query<{ id: string }>(
    createStatement.query({
      business_id: (items[0] as AccountToInsert).account.business_id,
      ...Object.fromEntries(INPUT_COLUMNS.map((c) => [c, column(c)])),
      references: items.map((item) => item.number.reference),
      issued_ats: items.map((item) => item.number.issued_at),
      issued_by_types: items.map((item) => item.number.issued_by_type ?? null),
      issued_by_ids: items.map((item) => item.number.issued_by_id ?? null),
      record_accounts: records.map((r) => r.account),
      record_kinds: records.map((r) => r.kind),
      record_keys: records.map((r) => r.key),
      record_businesses: records.map((r) => r.business),
      record_statuses: records.map((r) => r.status),
      record_responses: records.map((r) => r.response),
    }),
  );
  const created = new Set(result.rows.map((row) => row.id));
  return items.map((item) => created.has(item.account.id));
}

/** A comment the statement's text starts with: the proxy in test/commit-outcome.test.ts drops the answer to it. */
export const CREATE_ON_POSTGRES_MARKER = "vas_create_account";

// The account's columns that come from the request (all but what the statement sets itself), as
// arrays named for their column, each with its array type.
const SET_BY_STATEMENT = new Set(["business_id", "ordinal", "version", "deactivated_at"]);
const INPUT_COLUMNS = ACCOUNT_COLUMNS.filter((column) => !SET_BY_STATEMENT.has(column)) as Array<
  Exclude<(typeof ACCOUNT_COLUMNS)[number], "business_id" | "ordinal" | "version" | "deactivated_at">
>;
const NOT_TEXT: Partial<Record<(typeof INPUT_COLUMNS)[number], string>> = {
  duration_minutes: "integer",
  expected_amount: "bigint",
};

// The accounts (INPUT_COLUMNS), their numbers' reference, issue time and issuer, and the request
// records to complete, each with the account whose creation answers it, all as arrays. `fresh`
// leaves out a permanent account whose email the business has; the business row is updated once,
// by the batch's size, and the accounts take its last ordinals in batch order. Nothing is created
// when the business is unknown.
const createStatement = named(`/* ${CREATE_ON_POSTGRES_MARKER} */
with input as (
  select * from unnest(${INPUT_COLUMNS.map((c) => `@${c}::${NOT_TEXT[c] ?? "text"}[]`).join(", ")},
                       @references::text[], @issued_ats::text[], @issued_by_types::text[], @issued_by_ids::text[])
    with ordinality
    as i(${INPUT_COLUMNS.join(", ")}, reference, issued_at, issued_by_type, issued_by_id, position)
), fresh as (
  select i.*, row_number() over (order by i.position) as rank from input i
  where i.kind <> 'permanent' or not exists (
    select 1 from accounts a where a.business_id = @business_id and a.kind = 'permanent' and a.email = i.email)
), size as (
  select count(*)::integer as n from fresh
), counted as (
  update businesses set account_count = account_count + (select n from size)
  where id = @business_id and (select n from size) > 0
  returning account_count - (select n from size) as base
), account as (
  insert into accounts (id, business_id, ordinal, kind, account_number, account_name, customer_name, email,
    identity_type, identity_fingerprint, identity_last4, version, duration_minutes, expires_at, expected_amount,
    amount_policy, deactivated_at, created_at, updated_at)
  select f.id, @business_id, c.base + f.rank, f.kind, f.account_number, f.account_name, f.customer_name, f.email,
    f.identity_type, f.identity_fingerprint, f.identity_last4, 1, f.duration_minutes, f.expires_at,
    f.expected_amount, f.amount_policy, null, f.created_at, f.updated_at
  from fresh f cross join counted c
  returning id
), issued as (
  insert into account_numbers (account_number, account_id, business_id, version, reference, issued_at, retired_at,
    issued_by_type, issued_by_id)
  select f.account_number, f.id, @business_id, 1, f.reference, f.issued_at, null, f.issued_by_type, f.issued_by_id
  from fresh f cross join counted c
), answered as (
  update request_records r set state = 'done', status_code = k.status, response = k.response
  from unnest(@record_accounts::text[], @record_kinds::text[], @record_keys::text[],
              @record_businesses::text[], @record_statuses::integer[], @record_responses::text[])
    as k(account_id, kind, key, business_id, status, response)
  where r.business_id = k.business_id and r.kind = k.kind and r.key = k.key
    and k.account_id in (select id from account)
)
select id from account`);
