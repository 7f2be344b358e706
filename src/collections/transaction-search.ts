import type { Transaction } from "../core/api-types.js";
import type { MatchCursor, TransactionMatch } from "../core/transaction-queries.js";
import type { Executor } from "../storage/executor.js";
import { countMatching, cursorOf, matchingAfter, matchingPage } from "../storage/transaction-search.js";
import { listTransactions, scopeOf, type TransactionPage, viewsOf } from "./transaction-listing.js";
import type { TransactionQuery } from "./validation.js";

// The dashboard's transactions (issue 28, item 8): GET /transactions' query with the payer's
// name and the amount, a page of it, and all of it for an export.

/** GET /transactions' query, and part of the payer's name, the exact amount (kobo), and held credits only. */
export interface TransactionSearch extends TransactionQuery {
  payerName?: string;
  amount?: number;
  /** Only the credits held now, to accept or return (issue 46). */
  held?: boolean;
}

/** Rows an export reads at a time: one query each, in constant memory whatever the range. */
export const EXPORT_BATCH = 500;

const matchOf = (search: TransactionSearch): TransactionMatch => ({
  timeField: search.timeField,
  ...(search.from !== undefined ? { from: search.from } : {}),
  ...(search.to !== undefined ? { to: search.to } : {}),
  ...(search.sessionId !== undefined ? { sessionId: search.sessionId } : {}),
  ...(search.payerName !== undefined ? { payerName: search.payerName } : {}),
  ...(search.amount !== undefined ? { amount: search.amount } : {}),
  ...(search.held ? { held: true } : {}),
});

/**
 * One page of the search: without a payer, an amount or `held` it is GET /transactions' own page (its
 * index paths); with one, a count and an offset over the business's (or account's) rows.
 */
export async function searchTransactions(
  db: Executor,
  businessId: string,
  search: TransactionSearch,
): Promise<TransactionPage> {
  if (search.payerName === undefined && search.amount === undefined && !search.held) {
    return listTransactions(db, businessId, search);
  }
  const { page, limit } = search;
  const { scope } = await scopeOf(db, businessId, search.accountNumber);
  const match = matchOf(search);
  const total = await countMatching(db, scope, match);
  const offset = (page - 1) * limit;
  const rows = offset < total ? await matchingPage(db, scope, match, offset, limit) : [];
  return {
    items: await viewsOf(db, rows),
    pagination: { page, limit, total, pages: Math.ceil(total / limit) },
  };
}

/**
 * Everything the search selects, every page of it (its `page` and `limit` aside), in the order
 * GET /transactions pages it, `batch` rows a query. The account is looked up before the first
 * batch, so a search that cannot run is refused before anything is sent.
 */
export async function transactionsToExport(
  db: Executor,
  businessId: string,
  search: TransactionSearch,
  batch = EXPORT_BATCH,
): Promise<AsyncIterable<Transaction[]>> {
  const { scope } = await scopeOf(db, businessId, search.accountNumber);
  const match = matchOf(search);
  return {
    async *[Symbol.asyncIterator]() {
      let cursor: MatchCursor | undefined;
      for (;;) {
        const rows = await matchingAfter(db, scope, match, cursor, batch);
        if (rows.length === 0) return;
        yield await viewsOf(db, rows);
        if (rows.length < batch) return;
        cursor = cursorOf(rows[rows.length - 1] as (typeof rows)[number], scope);
      }
    },
  };
}
