import { type SqlBool, sql } from "kysely";
import type { Executor } from "./executor.js";
import { containsPattern } from "./transaction-search.js";

// The operator console's searches across every business (issue 28, item 11): each an index
// seek, but a business's name (a scan of the businesses, a small table).

/** How many rows a console search answers at most. */
export const CONSOLE_RESULTS = 50;

/** Ids of businesses whose account (a number it has or had) this is. */
export async function businessesByAccountNumber(db: Executor, accountNumber: string): Promise<string[]> {
  const rows = await db
    .selectFrom("account_numbers")
    .select("business_id")
    .where("account_number", "=", accountNumber)
    .execute();
  return rows.map((row) => row.business_id);
}

/** Ids of businesses with a user, or a contact in their details, at this email. */
export async function businessesByEmail(db: Executor, email: string): Promise<string[]> {
  const [users, contacts] = await Promise.all([
    db
      .selectFrom("users")
      .select("business_id")
      .where("email", "=", email)
      .where("business_id", "is not", null)
      .execute(),
    db
      .selectFrom("business_profiles")
      .select("business_id")
      .where(sql<SqlBool>`lower(contact_email) = ${email}`)
      .limit(CONSOLE_RESULTS)
      .execute(),
  ]);
  return [...users.map((row) => row.business_id as string), ...contacts.map((row) => row.business_id)];
}

/** Ids of businesses whose details carry an RC number with these digits, with or without its prefix. */
export async function businessesByRcNumber(db: Executor, digits: string): Promise<string[]> {
  const spellings = [digits, ...["RC", "BN", "IT"].map((prefix) => `${prefix}${digits}`)];
  const rows = await db
    .selectFrom("business_profiles")
    .select("business_id")
    .where(sql<string>`upper(rc_number)`, "in", spellings)
    .limit(CONSOLE_RESULTS)
    .execute();
  return rows.map((row) => row.business_id);
}

/** Ids of businesses whose name or registered name holds `text`, in any case. */
export async function businessesByName(db: Executor, text: string): Promise<string[]> {
  const pattern = containsPattern(text);
  const [names, registered] = await Promise.all([
    db
      .selectFrom("businesses")
      .select("id")
      .where(sql<SqlBool>`lower(name) like ${pattern} escape '\\'`)
      .limit(CONSOLE_RESULTS)
      .execute(),
    db
      .selectFrom("business_profiles")
      .select("business_id")
      .where(sql<SqlBool>`lower(registered_name) like ${pattern} escape '\\'`)
      .limit(CONSOLE_RESULTS)
      .execute(),
  ]);
  return [...names.map((row) => row.id), ...registered.map((row) => row.business_id)];
}

/** Accounts across every business with this email, newest first, with their business's name. */
export function accountsByEmailAcross(db: Executor, email: string) {
  return accountsWithBusiness(db).where("a.email", "=", email).orderBy("a.created_at", "desc").execute();
}

/** The account this number is or was, across every business, with its business's name. */
export function accountByAnyNumberAcross(db: Executor, accountNumber: string) {
  return accountsWithBusiness(db)
    .innerJoin("account_numbers as n", "n.account_id", "a.id")
    .where("n.account_number", "=", accountNumber)
    .execute();
}

function accountsWithBusiness(db: Executor) {
  return db
    .selectFrom("accounts as a")
    .innerJoin("businesses as b", "b.id", "a.business_id")
    .select([
      "a.id",
      "a.business_id as businessId",
      "b.name as businessName",
      "a.account_number as accountNumber",
      "a.account_name as accountName",
      "a.customer_name as customerName",
      "a.email",
      "a.kind",
      "a.deactivated_at as deactivatedAt",
      "a.expires_at as expiresAt",
      "a.total_received as totalReceived",
      "a.tier",
      "a.created_at as createdAt",
    ])
    .limit(CONSOLE_RESULTS);
}

/** Where the console's transaction list continues: after this row, in (value_at, session_id) order. */
export interface AcrossCursor {
  valueAt: string;
  sessionId: string;
}

/**
 * Transactions across every business, latest value time first, `limit` after `before` (one
 * range of the (value_at, session_id) index), or the one with this session id, or one
 * account's; each with its business's name.
 */
export function transactionsAcross(
  db: Executor,
  filter: { sessionId?: string; accountId?: string },
  before: AcrossCursor | undefined,
  limit: number,
) {
  let query = db
    .selectFrom("transactions as t")
    .innerJoin("businesses as b", "b.id", "t.business_id")
    .selectAll("t")
    .select("b.name as business_name");
  if (filter.sessionId !== undefined) query = query.where("t.session_id", "=", filter.sessionId);
  if (filter.accountId !== undefined) query = query.where("t.account_id", "=", filter.accountId);
  if (before !== undefined) {
    query = query.where(sql<SqlBool>`(t.value_at, t.session_id) < (${before.valueAt}, ${before.sessionId})`);
  }
  return query.orderBy("t.value_at", "desc").orderBy("t.session_id", "desc").limit(limit).execute();
}
