import type { Selectable } from "kysely";
import type { TransactionScope } from "../core/transaction-queries.js";
import type { Executor } from "./executor.js";
import type { TransactionsTable } from "./schema-ledger.js";

export type TransactionRow = Selectable<TransactionsTable>;

export function findTransactionBySession(
  db: Executor,
  sessionId: string,
): Promise<TransactionRow | undefined> {
  return db.selectFrom("transactions").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
}

export function findTransaction(
  db: Executor,
  businessId: string,
  id: string,
): Promise<TransactionRow | undefined> {
  return db
    .selectFrom("transactions")
    .selectAll()
    .where("id", "=", id)
    .where("business_id", "=", businessId)
    .executeTakeFirst();
}

/**
 * The business's newest transaction's ordinal (so also the business's number of transactions)
 * and recording time: one index seek on (business_id, ordinal).
 */
export function lastTransaction(
  db: Executor,
  businessId: string,
): Promise<Pick<TransactionRow, "ordinal" | "created_at"> | undefined> {
  return db
    .selectFrom("transactions")
    .select(["ordinal", "created_at"])
    .where("business_id", "=", businessId)
    .orderBy("ordinal", "desc")
    .limit(1)
    .executeTakeFirst();
}

export function scoped(db: Executor, scope: TransactionScope) {
  const query = db.selectFrom("transactions").where("business_id", "=", scope.businessId);
  return scope.kind === "account" ? query.where("account_id", "=", scope.accountId) : query;
}

export const ordinalColumn = (scope: TransactionScope) =>
  scope.kind === "account" ? "account_ordinal" : "ordinal";

/**
 * The lowest ordinal recorded at or after `from` (or undefined), one index seek: (business or
 * account, created_at, ordinal).
 */
export async function firstOrdinalFrom(
  db: Executor,
  scope: TransactionScope,
  from: string,
): Promise<number | undefined> {
  const column = ordinalColumn(scope);
  const row = await scoped(db, scope)
    .select(column)
    .where("created_at", ">=", from)
    .orderBy("created_at", "asc")
    .orderBy(column, "asc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number((row as Record<string, unknown>)[column]);
}

/** The highest ordinal recorded at or before `to` (or undefined), one index seek. */
export async function lastOrdinalUpTo(
  db: Executor,
  scope: TransactionScope,
  to: string,
): Promise<number | undefined> {
  const column = ordinalColumn(scope);
  const row = await scoped(db, scope)
    .select(column)
    .where("created_at", "<=", to)
    .orderBy("created_at", "desc")
    .orderBy(column, "desc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number((row as Record<string, unknown>)[column]);
}

/** Transactions whose ordinal lies in [`from`, `upTo`], newest first: an index range read. */
export function transactionPage(
  db: Executor,
  scope: TransactionScope,
  from: number,
  upTo: number,
): Promise<TransactionRow[]> {
  return transactionPageQuery(db, scope, from, upTo).execute();
}

/** The query behind transactionPage (exposed so tests can check its plan). */
export function transactionPageQuery(db: Executor, scope: TransactionScope, from: number, upTo: number) {
  const column = ordinalColumn(scope);
  return scoped(db, scope)
    .selectAll()
    .where(column, ">=", from)
    .where(column, "<=", upTo)
    .orderBy(column, "desc");
}
