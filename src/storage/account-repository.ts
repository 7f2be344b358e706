import type { Insertable, Updateable } from "kysely";
import { permanentAccountExists } from "../errors.js";
import { isUniqueViolationOf } from "./errors.js";
import type { AccountNumbersTable, AccountRow, AccountsTable, NewAccount } from "./schema.js";
import type { Executor } from "./transactions.js";

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
  return db
    .selectFrom("accounts")
    .selectAll()
    .where("business_id", "=", businessId)
    .where("kind", "=", "permanent")
    .where("email", "=", email)
    .executeTakeFirst();
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
  "account_number" | "account_name" | "email" | "kind" | "expires_at" | "created_at" | "ordinal"
>;

/**
 * Accounts whose ordinal lies in (`above`, `upTo`], newest first: an index range scan on
 * (business_id, ordinal), whatever the depth of the page.
 */
export function listAccountsByOrdinal(
  db: Executor,
  businessId: string,
  above: number,
  upTo: number,
): Promise<AccountListRow[]> {
  return accountPageQuery(db, businessId, above, upTo).execute();
}

/** The query behind listAccountsByOrdinal (exposed so tests can check its plan). */
export function accountPageQuery(db: Executor, businessId: string, above: number, upTo: number) {
  return db
    .selectFrom("accounts")
    .select(["account_number", "account_name", "email", "kind", "expires_at", "created_at", "ordinal"])
    .where("business_id", "=", businessId)
    .where("ordinal", ">", above)
    .where("ordinal", "<=", upTo)
    .orderBy("ordinal", "desc");
}
