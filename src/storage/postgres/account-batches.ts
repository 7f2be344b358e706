import type pg from "pg";
import type { AccountToCreate, NumberToRecord } from "../../core/account-writes.js";
import { isDuplicatePermanent } from "../account-repository.js";
import { type AccountColumns, accountColumns, type NumberColumns, numberColumns } from "../account-writes.js";
import { ACCOUNT_COLUMNS } from "../schema.js";
import type { AnswerRecords, UnitOfWork } from "../unit-of-work.js";
import { answeredCte, recordsValues } from "./answered.js";
import { named } from "./named.js";
import { statementWrite } from "./transaction.js";
import { WriteBatches } from "./write-batches.js";

/** One account to create on PostgreSQL, with its first number and the answer its request stores. */
interface AccountToInsert {
  account: AccountColumns;
  number: NumberColumns;
  answer: AnswerRecords | undefined;
}

/**
 * PostgreSQL: creates the account with its first number, the request's answer included, in one
 * autocommitted statement, batched with the business's other creates in flight (WriteBatches keyed
 * by business): the statement that creates a batch's accounts updates the business row once,
 * however many there are, so one business's generates no longer take turns on that row's lock one
 * commit at a time. `create` resolves to `answer`, or to undefined when the business already has a
 * permanent account for the email (nothing written, no answer stored: the caller re-issues). Two
 * requests for one new email never share a batch; two racing in different processes meet at the
 * partial unique index, and the loser re-issues (a batch so refused is written one at a time).
 */
export function accountCreates(pool: pg.Pool) {
  const batches = new WriteBatches<AccountToInsert, boolean>({
    many: (items) => insertAll(pool, items),
    one: (item) =>
      insertAll(pool, [item]).then(
        ([created]) => created === true,
        (error: unknown) => {
          if (isDuplicatePermanent(error)) return false;
          throw error;
        },
      ),
    key: (item) => item.account.business_id,
    identity: (item) =>
      item.account.kind === "permanent" ? `permanent:${item.account.email}` : item.account.id,
    max: 64,
    // A batch holds a pooled connection through its commit; the requests queued behind it
    // need connections too (their claim, the bank's account). Measured with a pool of 10 and
    // ten businesses: no limit 608 req/s, a third of the pool 797, one 622 (docs/performance.md).
    maxRunning: Math.max(1, Math.floor((pool.options.max ?? 10) / 3)),
  });
  return <T>(
    account: AccountToCreate,
    number: NumberToRecord,
    answer: T,
    unit: UnitOfWork | undefined,
  ): Promise<T | undefined> =>
    statementWrite(unit, answer, (stored) =>
      batches.submit({ account: accountColumns(account), number: numberColumns(number), answer: stored }),
    );
}

async function insertAll(pool: pg.Pool, items: readonly AccountToInsert[]): Promise<boolean[]> {
  const column = <K extends keyof AccountColumns>(key: K) => items.map((item) => item.account[key] ?? null);
  const result = await pool.query<{ id: string }>(
    createStatement.query({
      business_id: (items[0] as AccountToInsert).account.business_id,
      ...Object.fromEntries(INPUT_COLUMNS.map((c) => [c, column(c)])),
      references: items.map((item) => item.number.reference),
      issued_ats: items.map((item) => item.number.issued_at),
      issued_by_types: items.map((item) => item.number.issued_by_type ?? null),
      issued_by_ids: items.map((item) => item.number.issued_by_id ?? null),
      ...recordsValues(items.map((item) => ({ answer: item.answer, owner: item.account.id }))),
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
  tier: "integer",
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
  returning account_count - (select n from size) as base, kyc_tier
), account as (
  insert into accounts (id, business_id, ordinal, kind, account_number, account_name, customer_name, email,
    identity_type, identity_fingerprint, identity_last4, second_identity_fingerprint, second_identity_last4, tier,
    version, duration_minutes, expires_at, expected_amount, amount_policy, allowed_payers, on_mismatch, deactivated_at,
    created_at, updated_at)
  select f.id, @business_id, c.base + f.rank, f.kind, f.account_number, f.account_name, f.customer_name, f.email,
    f.identity_type, f.identity_fingerprint, f.identity_last4, f.second_identity_fingerprint,
    f.second_identity_last4, greatest(f.tier, coalesce(c.kyc_tier, 1)), 1, f.duration_minutes, f.expires_at,
    f.expected_amount, f.amount_policy, f.allowed_payers, f.on_mismatch, null, f.created_at, f.updated_at
  from fresh f cross join counted c
  returning id
), issued as (
  insert into account_numbers (account_number, account_id, business_id, version, reference, issued_at, retired_at,
    issued_by_type, issued_by_id)
  select f.account_number, f.id, @business_id, 1, f.reference, f.issued_at, null, f.issued_by_type, f.issued_by_id
  from fresh f cross join counted c
), ${answeredCte("k.owner in (select id from account)")}
select id from account`);
