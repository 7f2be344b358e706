import type { Insertable } from "kysely";
import { findPermanentAccount, insertAccount, recordIssuedNumber } from "./account-repository.js";
import { lockBusinessForWrites, nextAccountOrdinal } from "./business-repository.js";
import type { Storage } from "./database.js";
import { prepared } from "./prepared.js";
import type { AccountNumbersTable, NewAccount } from "./schema.js";
import { groupWrite, writeTransaction } from "./transactions.js";

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
 * The hot path of generate (issue 12). On SQLite it is one synchronous write on statements
 * prepared once, committed with the writes of the other requests in flight (group commit).
 */
export function createAccountIfNew<T>(
  storage: Storage,
  account: AccountToCreate,
  number: NumberToRecord,
  answer: T,
): Promise<T | undefined> {
  const created = { answers: (result: T | undefined) => result !== undefined };
  const firstNumber = { ...number, account_id: account.id, business_id: account.business_id, version: 1 };
  if (storage.group) {
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
  return writeTransaction(
    storage,
    async (trx) => {
      // Writers of one business take turns on its row, so two requests for one new customer
      // cannot both find no account and both create one.
      await lockBusinessForWrites(trx, account.business_id);
      if (
        account.kind === "permanent" &&
        (await findPermanentAccount(trx, account.business_id, account.email))
      ) {
        return undefined;
      }
      await insertAccount(trx, { ...account, ordinal: await nextAccountOrdinal(trx, account.business_id) });
      await recordIssuedNumber(trx, firstNumber);
      return answer;
    },
    created,
  );
}

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
