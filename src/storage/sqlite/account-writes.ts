import type SqliteDatabase from "better-sqlite3";
import type { AccountToCreate, AccountWrites, NumberToRecord } from "../../core/account-writes.js";
import {
  accountColumns,
  existingAccount,
  NUMBER_COLUMNS,
  numberColumns,
  RETIRE_NUMBER,
  reissuedAssignments,
  reissuedColumns,
} from "../account-writes.js";
import type { SqliteStorage } from "../database.js";
import { prepared } from "../prepared.js";
import { ACCOUNT_COLUMNS, type AccountRow } from "../schema.js";
import { writeEventNow } from "./event-writes.js";
import { groupWrite } from "./group-write.js";

/**
 * Generate on SQLite: one synchronous write on statements prepared once, committed with the
 * writes of the other requests in flight (group commit). The write runs alone, so the permanent
 * account it reads cannot change under it.
 */
export function sqliteAccountWrites(storage: SqliteStorage): AccountWrites {
  return {
    createTemporary: (account, number, answer, unit) =>
      groupWrite(storage.group, (db) => createNow(db, account, number, answer), unit),
    createOrReissue: (account, number, created, reissue, unit) =>
      groupWrite(
        storage.group,
        (db) => {
          const existing = prepared(db, PERMANENT_LOOKUP).get(account.businessId, account.email) as
            | AccountRow
            | undefined;
          if (!existing) return createNow(db, account, number, created);
          const decided = reissue(existingAccount(existing));
          const fields = reissuedColumns(decided.fields);
          prepared(db, REISSUE_ACCOUNT).run({ ...fields, id: existing.id });
          prepared(db, RETIRE_NUMBER).run({
            updated_at: fields.updated_at,
            retired_number: existing.account_number,
          });
          prepared(db, INSERT_NUMBER).run({
            ...numberColumns(number),
            account_id: existing.id,
            business_id: existing.business_id,
            version: fields.version,
          });
          writeEventNow(db, decided.event);
          return decided.result;
        },
        unit,
      ),
  };
}

/** Inside a synchronous write: the account (the business's next ordinal) and its first number. */
function createNow<T>(
  db: SqliteDatabase.Database,
  account: AccountToCreate,
  number: NumberToRecord,
  answer: T,
): T {
  const { account_count, kyc_tier } = prepared(db, NEXT_ORDINAL).get(account.businessId) as {
    account_count: number;
    kyc_tier: number | null;
  };
  const columns = accountColumns(account);
  prepared(db, INSERT_ACCOUNT).run({
    ...columns,
    // The business's KYC level is a floor under the tier (issue 46), read with its row, as on PostgreSQL.
    tier: Math.max(columns.tier ?? 1, kyc_tier ?? 1),
    deactivated_at: null,
    ordinal: account_count,
  });
  prepared(db, INSERT_NUMBER).run({
    ...numberColumns(number),
    account_id: account.id,
    business_id: account.businessId,
    version: 1,
  });
  return answer;
}

/**
 * The partial index's predicate is a literal, not a parameter: SQLite may use the index
 * (kind = 'permanent') only for a statement whose predicate implies it, and with a bound value
 * it re-prepares the statement on every call to find out (about 54 us against 4.5 us, issue 12).
 */
export const PERMANENT_LOOKUP =
  "select * from accounts where business_id = ? and kind = 'permanent' and email = ?";
const NEXT_ORDINAL =
  "update businesses set account_count = account_count + 1 where id = ? returning account_count, kyc_tier";

const insertSql = (table: string, columns: readonly string[]) =>
  `insert into ${table} (${columns.join(", ")}) values (${columns.map((c) => `@${c}`).join(", ")})`;
const INSERT_ACCOUNT = insertSql("accounts", ACCOUNT_COLUMNS);
const INSERT_NUMBER = insertSql("account_numbers", NUMBER_COLUMNS);
const REISSUE_ACCOUNT = `update accounts set ${reissuedAssignments("max", () => "")}
  where id = @id`;
