import { type Insertable, sql, type Updateable } from "kysely";
import { permanentAccountExists } from "../errors.js";
import { isUniqueViolationOf } from "./errors.js";
import type { AccountNumbersTable, AccountRow, AccountsTable, NewAccount } from "./schema.js";
import { type Executor, hasRowLocks } from "./transactions.js";

/**
 * The business's permanent account for an email (already normalised). With `lock`, the row is
 * locked until the transaction ends (PostgreSQL; SQLite's write transaction already excludes
 * every other writer).
 */
export function findPermanentAccount(
  db: Executor,
  businessId: string,
  email: string,
): Promise<AccountRow | undefined> {
  return permanentAccountQuery(db, businessId, email).executeTakeFirst();
}

/** The query behind findPermanentAccount (exposed so tests can check its plan). */
export function permanentAccountQuery(db: Executor, businessId: string, email: string) {
  return (
    db
      .selectFrom("accounts")
      .selectAll()
      .where("business_id", "=", businessId)
      // A literal, not a parameter: SQLite may use the partial index (kind = 'permanent') only
      // for a statement whose predicate implies it, and with a bound value it re-prepares the
      // statement on every call to find out (about 54 us against 4.5 us, issue 12).
      .where("kind", "=", sql.lit("permanent"))
      .where("email", "=", email)
  );
}

/**
 * Inserts an account. A second permanent account for one business and email is refused by the
 * database whatever the caller did; that refusal comes out as the domain's error, never the
 * driver's.
 */
export async function insertAccount(db: Executor, row: NewAccount): Promise<void> {
  try {
    await db.insertInto("accounts").values(row).execute();
  } catch (error) {
    if (row.kind === "permanent" && isUniqueViolationOf(error, ONE_PERMANENT_PER_EMAIL))
      throw permanentAccountExists();
    throw error;
  }
}

/** True when the database refused a second permanent account for one business and email. */
export const isDuplicatePermanent = (error: unknown) => isUniqueViolationOf(error, ONE_PERMANENT_PER_EMAIL);

const ONE_PERMANENT_PER_EMAIL = {
  index: "accounts_one_permanent_per_email",
  columns: "accounts.business_id, accounts.email",
};

export async function updateAccount(
  db: Executor,
  id: string,
  changes: Updateable<AccountsTable>,
): Promise<void> {
  await db.updateTable("accounts").set(changes).where("id", "=", id).execute();
}

/** Records a newly issued number in the ledger; a number already there is a unique violation. */
export async function recordIssuedNumber(db: Executor, row: Insertable<AccountNumbersTable>): Promise<void> {
  await db.insertInto("account_numbers").values(row).execute();
}

export async function retireNumber(db: Executor, accountNumber: string, now: string): Promise<void> {
  await db
    .updateTable("account_numbers")
    .set({ retired_at: now })
    .where("account_number", "=", accountNumber)
    .where("retired_at", "is", null)
    .execute();
}

export type AccountListRow = Pick<
  AccountRow,
  | "account_number"
  | "account_name"
  | "email"
  | "kind"
  | "expires_at"
  | "created_at"
  | "ordinal"
  | "deactivated_at"
>;

/** An account found by one of its numbers (current or retired), with that number's retirement. */
export interface AccountByNumber {
  account: AccountRow;
  /** When this number was retired by a re-issue (null: it is the account's current number). */
  retiredAt: string | null;
}

/**
 * The account a number was issued to, whichever business it belongs to, locked for the rest of
 * the transaction on PostgreSQL (transfers into one account take turns).
 */
export async function findAccountByNumberForUpdate(
  db: Executor,
  accountNumber: string,
): Promise<AccountByNumber | undefined> {
  const issued = await db
    .selectFrom("account_numbers")
    .select(["account_id", "retired_at"])
    .where("account_number", "=", accountNumber)
    .executeTakeFirst();
  if (!issued) return undefined;
  let query = db.selectFrom("accounts").selectAll().where("id", "=", issued.account_id);
  if (hasRowLocks(db)) query = query.forUpdate();
  const account = await query.executeTakeFirst();
  return account ? { account, retiredAt: issued.retired_at } : undefined;
}

/** The business's account whose current number this is. */
export function findCurrentAccount(
  db: Executor,
  businessId: string,
  accountNumber: string,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where("account_number", "=", accountNumber)
    .where("business_id", "=", businessId)
    .executeTakeFirst();
}

/** The business's account that this number (current or retired) was issued to. */
export async function findAccountByAnyNumber(
  db: Executor,
  businessId: string,
  accountNumber: string,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("account_numbers as n")
    .innerJoin("accounts as a", "a.id", "n.account_id")
    .selectAll("a")
    .where("n.account_number", "=", accountNumber)
    .where("n.business_id", "=", businessId)
    .executeTakeFirst();
}

/** Counts an accepted transfer on the account; returns its ordinal among the account's transfers. */
export async function countTransfer(db: Executor, accountId: string, amount: number): Promise<number> {
  const row = await db
    .updateTable("accounts")
    .set((eb) => ({
      total_received: eb("total_received", "+", amount),
      transfer_count: eb("transfer_count", "+", 1),
    }))
    .where("id", "=", accountId)
    .returning("transfer_count")
    .executeTakeFirstOrThrow();
  return row.transfer_count;
}

/** The business a number (current or retired) was issued for, if any. */
export async function findNumberOwner(db: Executor, accountNumber: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("account_numbers")
    .select("business_id")
    .where("account_number", "=", accountNumber)
    .executeTakeFirst();
  return row?.business_id;
}

export function findAccountById(db: Executor, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}
