import { type SqlBool, sql } from "kysely";
import type { MatchCursor, TransactionMatch, TransactionScope } from "../core/transaction-queries.js";
import type { Executor } from "./executor.js";
import { beforeRow } from "./keyset.js";
import { ordinalColumn, scoped, type TransactionRow } from "./transaction-repository.js";

// The dashboard's search of a business's transactions (issue 28, item 8): GET /transactions'
// filters and two a finance lead asks for, the payer's name and the amount (and, issue 46, the
// credits held now). One WHERE for the
// page (a count and an offset, as the API pages) and for the export (keyset batches in the
// same order, so a year of a busy business streams in constant memory).

/** `text` as a LIKE pattern that matches it anywhere, its own `%`, `_` and `\\` taken literally. */
export const containsPattern = (text: string): string =>
  `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * In value-time order (latest paid first) when a paidAt range bounds the search, as GET
 * /transactions orders it; otherwise newest recorded first.
 */
const byValueTime = (match: TransactionMatch) =>
  match.timeField === "paidAt" && (match.from !== undefined || match.to !== undefined);

function matching(db: Executor, scope: TransactionScope, match: TransactionMatch) {
  let query = scoped(db, scope);
  const time = match.timeField === "paidAt" ? "value_at" : "created_at";
  if (match.from !== undefined) query = query.where(time, ">=", match.from);
  if (match.to !== undefined) query = query.where(time, "<=", match.to);
  if (match.sessionId !== undefined) query = query.where("session_id", "=", match.sessionId);
  if (match.amount !== undefined) query = query.where("amount", "=", match.amount);
  if (match.held) {
    // Came in held, and no decision took it out of held (one held again after a failed return is held).
    query = query
      .where("status", "=", "held")
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("held_credits")
              .select("held_credits.transaction_id")
              .whereRef("held_credits.transaction_id", "=", "transactions.id")
              .where("held_credits.state", "!=", "held"),
          ),
        ),
      );
  }
  if (match.payerName !== undefined) {
    const pattern = containsPattern(match.payerName);
    query = query.where(sql<SqlBool>`lower(payer_name) like ${pattern} escape '\\'`);
  }
  return query;
}

function ordered(db: Executor, scope: TransactionScope, match: TransactionMatch) {
  const column = ordinalColumn(scope);
  const query = matching(db, scope, match).selectAll();
  return byValueTime(match)
    ? query.orderBy("value_at", "desc").orderBy(column, "desc")
    : query.orderBy(column, "desc");
}

/** How many of the scope's transactions the search selects. */
export async function countMatching(
  db: Executor,
  scope: TransactionScope,
  match: TransactionMatch,
): Promise<number> {
  const row = await matching(db, scope, match)
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** One page of what the search selects, in its order. */
export function matchingPage(
  db: Executor,
  scope: TransactionScope,
  match: TransactionMatch,
  offset: number,
  limit: number,
): Promise<TransactionRow[]> {
  return ordered(db, scope, match).limit(limit).offset(offset).execute();
}

/** The next `limit` rows the search selects after `cursor` (from the first when it is absent). */
export function matchingAfter(
  db: Executor,
  scope: TransactionScope,
  match: TransactionMatch,
  cursor: MatchCursor | undefined,
  limit: number,
): Promise<TransactionRow[]> {
  let query = ordered(db, scope, match);
  if (cursor !== undefined) {
    const column = ordinalColumn(scope);
    query = byValueTime(match)
      ? query.where(beforeRow("value_at", column, { time: cursor.valueAt, id: cursor.ordinal }))
      : query.where(column, "<", cursor.ordinal);
  }
  return query.limit(limit).execute();
}

/** Where a walk continues after `row`. */
export const cursorOf = (row: TransactionRow, scope: TransactionScope): MatchCursor => ({
  valueAt: row.value_at,
  ordinal: Number(scope.kind === "account" ? row.account_ordinal : row.ordinal),
});
