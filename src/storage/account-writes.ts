import type { Insertable } from "kysely";
import type pg from "pg";
import { isDuplicatePermanent } from "./account-repository.js";
import type { Storage } from "./database.js";
import { prepared } from "./prepared.js";
import type { AccountNumbersTable, NewAccount } from "./schema.js";
import { groupWrite, statementWrite } from "./transactions.js";

/** A new account, less what storage assigns (its ordinal). */
export type AccountToCreate = Omit<NewAccount, "ordinal">;
/** Its first number, less what the account gives it. */
export type NumberToRecord = Omit<Insertable<AccountNumbersTable>, "account_id" | "business_id" | "version">;

/**
 * Creates the account (the business's next ordinal) with its first number, as the unit of
 * work's one write, and resolves to `answer`. A permanent account whose business already has one
 * for the email is not created: nothing is written, no answer is stored, and this resolves to
 * undefined (the caller re-issues instead).
 *
 * The hot path of generate (issue 12): on SQLite one synchronous write on statements prepared
 * once, committed with the writes of the other requests in flight (group commit); on
 * PostgreSQL one statement, one round trip (createOnPostgres).
 */
export function createAccountIfNew<T>(
  storage: Storage,
  account: AccountToCreate,
  number: NumberToRecord,
  answer: T,
): Promise<T | undefined> {
  const created = { answers: (result: T | undefined) => result !== undefined };
  const firstNumber = { ...number, account_id: account.id, business_id: account.business_id, version: 1 };
  if (storage.pool) return createOnPostgres(storage.pool, account, firstNumber, answer);
  if (!storage.group) throw new Error("storage has neither a group commit (SQLite) nor a pool (PostgreSQL)");
  return groupWrite(
    storage.group,
    (db) => {
      if (
        account.kind === "permanent" &&
        prepared(db, FIND_PERMANENT).get(account.business_id, account.email)
      ) {
        return undefined;
      }
      const { account_count } = prepared(db, NEXT_ORDINAL).get(account.business_id) as {
        account_count: number;
      };
      prepared(db, INSERT_ACCOUNT).run({ ...ACCOUNT_DEFAULTS, ...account, ordinal: account_count });
      prepared(db, INSERT_NUMBER).run({ ...NUMBER_DEFAULTS, ...firstNumber });
      return answer;
    },
    created,
  );
}

/**
 * PostgreSQL: the whole write, the request's answer included, in one autocommitted statement
 * (one round trip), named so the server parses and plans it once per connection. The business
 * row's update both assigns the ordinal and, for a permanent account, checks that the email has
 * none yet; two requests racing for one new email meet at the partial unique index, and the
 * loser (which wrote nothing) re-issues instead.
 */
async function createOnPostgres<T>(
  pool: pg.Pool,
  account: AccountToCreate,
  number: Insertable<AccountNumbersTable>,
  answer: T,
): Promise<T | undefined> {
  const row = { ...ACCOUNT_DEFAULTS, ...account };
  return statementWrite(answer, async (stored) => {
    try {
      const result = await pool.query<{ created: number }>({
        name: CREATE_ON_POSTGRES_NAME,
        text: CREATE_ON_POSTGRES,
        values: [
          ...ACCOUNT_COLUMNS.filter((c) => c !== "ordinal").map((c) => row[c as keyof typeof row]),
          number.reference,
          number.issued_at,
          number.issued_by_type ?? null,
          number.issued_by_id ?? null,
          stored?.statusCode ?? null,
          stored?.response ?? null,
          stored?.kinds ?? [],
          stored?.keys ?? [],
        ],
      });
      return result.rows[0]?.created === 1;
    } catch (error) {
      if (account.kind === "permanent" && isDuplicatePermanent(error)) return false;
      throw error;
    }
  });
}

/** The statement's name: the proxy in test/commit-outcome.test.ts drops the answer to it. */
export const CREATE_ON_POSTGRES_NAME = "vas_create_account";

// The partial index's predicate as a literal (see account-repository.ts).
const FIND_PERMANENT = "select 1 from accounts where business_id = ? and kind = 'permanent' and email = ?";
const NEXT_ORDINAL =
  "update businesses set account_count = account_count + 1 where id = ? returning account_count";

const ACCOUNT_COLUMNS = [
  "id",
  "business_id",
  "ordinal",
  "kind",
  "account_number",
  "account_name",
  "customer_name",
  "email",
  "identity_type",
  "identity_fingerprint",
  "identity_last4",
  "version",
  "duration_minutes",
  "expires_at",
  "expected_amount",
  "amount_policy",
  "deactivated_at",
  "created_at",
  "updated_at",
] as const;
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

// $1..$18: the account's columns but ordinal, in ACCOUNT_COLUMNS order; then the number's
// reference, issue time and issuer; then the answer and the request records it completes.
const CREATE_ON_POSTGRES = `
with created as (
  update businesses set account_count = account_count + 1
  where id = $2
    and ($3 <> 'permanent' or not exists (
      select 1 from accounts where business_id = $2 and kind = 'permanent' and email = $7))
  returning account_count
), account as (
  insert into accounts (${ACCOUNT_COLUMNS.join(", ")})
  select $1, $2, account_count, $3, $4, $5, $6, $7, $8, $9, $10, $11::integer, $12::integer, $13,
         $14::bigint, $15, $16, $17, $18
  from created
  returning id
), issued as (
  insert into account_numbers (${NUMBER_COLUMNS.join(", ")})
  select $4, id, $2, 1, $19, $20, null, $21, $22 from account
), answered as (
  update request_records r set state = 'done', status_code = $23::integer, response = $24
  from unnest($25::text[], $26::text[]) as k(kind, key)
  where r.business_id = $2 and r.kind = k.kind and r.key = k.key and exists (select 1 from account)
)
select count(*)::integer as created from account`;
