import type SqliteDatabase from "better-sqlite3";
import { createOnPostgres } from "./account-batches.js";
import type { Storage } from "./database.js";
import {
  type EventToWrite,
  eventCte,
  eventRowValues,
  writeDeliveriesOnClient,
  writeEventNow,
} from "./event-writes.js";
import { prepared } from "./prepared.js";
import { ACCOUNT_COLUMNS, type AccountRow, type AccountToCreate, type NumberToRecord } from "./schema.js";
import { clientTransaction, groupWrite } from "./transactions.js";

/**
 * Creates a temporary account (the business's next ordinal) with its first number, as the unit
 * of work's one write, and resolves to `answer`. Permanent accounts go through createOrReissue.
 *
 * The hot path of generate (issue 12): on SQLite one synchronous write on statements prepared
 * once, committed with the writes of the other requests in flight (group commit); on
 * PostgreSQL one statement, shared with the business's other creates in flight
 * (account-batches.ts).
 */
export async function createTemporary<T>(
  storage: Storage,
  account: AccountToCreate & { kind: "temporary" },
  number: NumberToRecord,
  answer: T,
): Promise<T> {
  if (storage.pool) {
    const created = await createOnPostgres(storage.pool, account, number, answer);
    // Only a permanent account is ever found existing instead.
    if (created === undefined) throw new Error("a temporary account was not created");
    return created;
  }
  if (!storage.group) throw new Error("storage has neither a group commit (SQLite) nor a pool (PostgreSQL)");
  return groupWrite(storage.group, (db) => createNow(db, account, number, answer));
}

/** SQLite, inside a synchronous write: the account (the business's next ordinal) and its first number. */
function createNow<T>(
  db: SqliteDatabase.Database,
  account: AccountToCreate,
  number: NumberToRecord,
  answer: T,
): T {
  const { account_count } = prepared(db, NEXT_ORDINAL).get(account.business_id) as { account_count: number };
  prepared(db, INSERT_ACCOUNT).run({ ...ACCOUNT_DEFAULTS, ...account, ordinal: account_count });
  prepared(db, INSERT_NUMBER).run({
    ...NUMBER_DEFAULTS,
    ...number,
    account_id: account.id,
    business_id: account.business_id,
    version: 1,
  });
  return answer;
}

/** What a re-issue changes on the account: its new number, the name on it and the identity behind it. */
export type ReissuedFields = Pick<
  AccountRow,
  | "account_number"
  | "account_name"
  | "customer_name"
  | "identity_type"
  | "identity_fingerprint"
  | "identity_last4"
  | "updated_at"
>;

/** The domain's re-issue of an existing permanent account: the new fields, its event, the answer. */
export interface Reissue<T> {
  fields: ReissuedFields;
  event: EventToWrite;
  result: T;
}

/**
 * Generate for a permanent account, as the unit of work's one write: creates the account (as
 * createTemporary does) and resolves to `created`, or, when the business has one for the email,
 * re-issues it as `reissue` decides from the existing row (read under its lock): the new number
 * (the next version), the old one retired, the account reactivated, `account.reissued` recorded.
 * On SQLite both are one synchronous write; on PostgreSQL the create is one statement and a
 * re-issue one transaction of two statements (the row's lock, then one statement for the rest).
 */
export async function createOrReissue<T>(
  storage: Storage,
  account: AccountToCreate,
  number: NumberToRecord,
  created: T,
  reissue: (existing: AccountRow) => Reissue<T>,
): Promise<T> {
  if (storage.pool) {
    // The usual case, a new customer, in one statement; an existing one is re-issued.
    const answer = await createOnPostgres(storage.pool, account, number, created);
    if (answer !== undefined) return answer;
    return reissueOnPostgres(storage, account, number, reissue);
  }
  if (!storage.group) throw new Error("storage has neither a group commit (SQLite) nor a pool (PostgreSQL)");
  return groupWrite(storage.group, (db) => {
    const existing = prepared(db, PERMANENT_LOOKUP.sqlite).get(account.business_id, account.email) as
      | AccountRow
      | undefined;
    if (!existing) return createNow(db, account, number, created);
    const decided = reissue(existing);
    const version = existing.version + 1;
    prepared(db, REISSUE_ACCOUNT).run({ ...decided.fields, version, id: existing.id });
    prepared(db, RETIRE_NUMBER).run(decided.fields.updated_at, existing.account_number);
    prepared(db, INSERT_NUMBER).run({
      ...NUMBER_DEFAULTS,
      ...number,
      account_id: existing.id,
      business_id: existing.business_id,
      version,
    });
    writeEventNow(db, decided.event);
    return decided.result;
  });
}

/**
 * PostgreSQL: locks the business's permanent account for the email (concurrent re-issues of one
 * customer take turns, each seeing the last one's number and version), then updates it, retires
 * its number, records the new one, completes the request's records and writes the event in one
 * statement.
 */
function reissueOnPostgres<T>(
  storage: Storage,
  account: AccountToCreate,
  number: NumberToRecord,
  reissue: (existing: AccountRow) => Reissue<T>,
): Promise<T> {
  return clientTransaction<T>(storage, async (client, answerFor) => {
    const found = await client.query<AccountRow>({
      text: PERMANENT_LOOKUP.postgres,
      values: [account.business_id, account.email],
    });
    const existing = found.rows[0];
    // Permanent accounts are never deleted, and this runs only after the create found one.
    if (!existing) throw new Error("the permanent account to re-issue is gone");
    const decided = reissue(existing);
    const answer = answerFor(decided.result);
    const { fields } = decided;
    const written = await client.query<{ event_sequence: number; endpoints: [] }>({
      text: REISSUE_ON_POSTGRES,
      values: [
        existing.id,
        existing.business_id,
        existing.version + 1,
        existing.account_number,
        ...REISSUED_COLUMNS.map((column) => fields[column]),
        number.reference,
        number.issued_at,
        number.issued_by_type ?? null,
        number.issued_by_id ?? null,
        answer?.statusCode ?? null,
        answer?.response ?? null,
        answer?.kinds ?? [],
        answer?.keys ?? [],
        answer?.businessIds ?? [],
        decided.event.counter,
        decided.event.row.id,
        ...eventRowValues(decided.event),
      ],
    });
    const row = written.rows[0] as { event_sequence: number; endpoints: [] };
    await writeDeliveriesOnClient(client, decided.event, row.event_sequence, row.endpoints);
    return decided.result;
  });
}

/**
 * The business's permanent account for an email, locked on PostgreSQL (SQLite's write runs
 * alone). The partial index's predicate is a literal, not a parameter: SQLite may use the index
 * (kind = 'permanent') only for a statement whose predicate implies it, and with a bound value
 * it re-prepares the statement on every call to find out (about 54 us against 4.5 us, issue 12).
 */
export const PERMANENT_LOOKUP = {
  sqlite: "select * from accounts where business_id = ? and kind = 'permanent' and email = ?",
  postgres: "select * from accounts where business_id = $1 and kind = 'permanent' and email = $2 for update",
};
const NEXT_ORDINAL =
  "update businesses set account_count = account_count + 1 where id = ? returning account_count";

const ACCOUNT_DEFAULTS = {
  duration_minutes: null,
  expires_at: null,
  expected_amount: null,
  amount_policy: null,
  deactivated_at: null,
};
const NUMBER_COLUMNS = [
  "account_number",
  "account_id",
  "business_id",
  "version",
  "reference",
  "issued_at",
  "retired_at",
  "issued_by_type",
  "issued_by_id",
] as const;
const NUMBER_DEFAULTS = { retired_at: null, issued_by_type: null, issued_by_id: null };

const insertSql = (table: string, columns: readonly string[]) =>
  `insert into ${table} (${columns.join(", ")}) values (${columns.map((c) => `@${c}`).join(", ")})`;
const INSERT_ACCOUNT = insertSql("accounts", ACCOUNT_COLUMNS);
const INSERT_NUMBER = insertSql("account_numbers", NUMBER_COLUMNS);

const REISSUED_COLUMNS = [
  "account_number",
  "account_name",
  "customer_name",
  "identity_type",
  "identity_fingerprint",
  "identity_last4",
  "updated_at",
] as const satisfies readonly (keyof ReissuedFields)[];
// A re-issue also reactivates: the customer's new number takes payments.
const REISSUE_ACCOUNT = `update accounts set ${REISSUED_COLUMNS.map((c) => `${c} = @${c}`).join(", ")},
  version = @version, deactivated_at = null where id = @id`;
const RETIRE_NUMBER =
  "update account_numbers set retired_at = ? where account_number = ? and retired_at is null";

const reissueEvent = eventCte({ counter: 21, id: 22, business: 2, row: 23 });
// $1 account id, $2 business, $3 new version, $4 old number; $5..$11 REISSUED_COLUMNS; $12..$15
// the new number's reference, issue time and issuer; $16..$20 the answer and the request
// records it completes; $21..$26 the event (eventCte).
const REISSUE_ON_POSTGRES = `
with account_reissued as (
  update accounts set ${REISSUED_COLUMNS.map((c, i) => `${c} = $${i + 5}`).join(", ")},
    version = $3::integer, deactivated_at = null
  where id = $1
), number_retired as (
  update account_numbers set retired_at = $11 where account_number = $4 and retired_at is null
), number_issued as (
  insert into account_numbers (${NUMBER_COLUMNS.join(", ")})
  values ($5, $1, $2, $3::integer, $12, $13, null, $14, $15)
), answered as (
  update request_records r set state = 'done', status_code = $16::integer, response = $17
  from unnest($18::text[], $19::text[], $20::text[]) as k(kind, key, business_id)
  where r.business_id = k.business_id and r.kind = k.kind and r.key = k.key
), ${reissueEvent.ctes}
select ${reissueEvent.select}`;
