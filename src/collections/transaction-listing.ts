import type { Pagination, Transaction } from "../core/api-types.js";
import type { TransactionScope } from "../core/transaction-queries.js";
import { accountNotFound } from "../errors.js";
import { chargeLines } from "../ledger/charges.js";
import { AMOUNT_OUT_STATUSES } from "../ledger/holds.js";
import type { HeldCreditRecord, TransactionRecord } from "../ledger/ledger-records.js";
import { findAccountByAnyNumber } from "../storage/account-repository.js";
import type { Executor } from "../storage/executor.js";
import { heldCreditsOf } from "../storage/held-credit-repository.js";
import { refundedAmounts } from "../storage/payout-repository.js";
import {
  findTransactionBySession,
  firstOrdinalFrom,
  lastOrdinalUpTo,
  lastTransaction,
  transactionPage,
} from "../storage/transaction-repository.js";
import { countMatching, matchingPage } from "../storage/transaction-search.js";
import type { TransactionQuery } from "./validation.js";

// GET /transactions: which of a business's transactions a query selects, and in what order.

/** A transaction as the API answers it, with what is refunded of it so far (0 when it is new). */
export const transactionView = (row: TransactionRecord, refundedAmount = 0): Transaction => ({
  id: row.id,
  accountNumber: row.account_number,
  amount: Number(row.amount),
  fee: Number(row.fee),
  charges: chargeLines({ vat: Number(row.vat), stampDuty: Number(row.stamp_duty) }),
  netAmount: Number(row.net_amount),
  currency: row.currency,
  payer: {
    name: row.payer_name,
    accountNumber: row.payer_account_number,
    bankName: row.payer_bank_name,
    bankCode: row.payer_bank_code ?? null,
  },
  narration: row.narration,
  sessionId: row.session_id,
  status: row.status,
  paidAt: row.value_at,
  createdAt: row.created_at,
  balanceAfter: Number(row.balance_after),
  refundedAmount,
});

/** A transaction with the decision on it, if it came in held: its view as the API answers it. */
export function heldView(
  row: TransactionRecord,
  credit: HeldCreditRecord | undefined,
  refunded = 0,
): Transaction {
  const view = transactionView(row, refunded);
  if (row.status !== "held") return view;
  if (credit?.state === "accepted") {
    const fee = Number(credit.fee);
    const vat = Number(credit.vat);
    const stampDuty = Number(credit.stamp_duty);
    return {
      ...transactionView(
        { ...row, fee, vat, stamp_duty: stampDuty, net_amount: Number(row.amount) - fee - vat - stampDuty },
        refunded,
      ),
      status: "successful",
    };
  }
  return { ...view, status: credit?.state === "returned" ? "returned" : "held" };
}

export interface TransactionPage {
  items: Transaction[];
  pagination: Pagination;
}

/**
 * One page of the business's transactions:
 * - by `sessionId` (a requery): the one transaction the bank recorded under it, if it is this
 *   business's and passes the other filters;
 * - with `from`/`to` on `paidAt` (the default time): latest value time first, a count and an
 *   offset over the range's index entries;
 * - otherwise (no range, or a range on `createdAt`): newest recorded first. Ordinals are dense
 *   per business and per account and follow recording time, so the bounds are two index seeks
 *   and any page an index range read.
 */
export async function listTransactions(
  db: Executor,
  businessId: string,
  query: TransactionQuery,
): Promise<TransactionPage> {
  const { page, limit, from, to } = query;
  const { scope, count: accountCount } = await scopeOf(db, businessId, query.accountNumber);
  let count = accountCount;
  const paging = (total: number) => ({ page, limit, total, pages: Math.ceil(total / limit) });
  if (query.sessionId !== undefined) {
    const row = await findTransactionBySession(db, query.sessionId);
    const found = row !== undefined && selects(row, scope, query);
    return { items: found && page === 1 ? await viewsOf(db, [row]) : [], pagination: paging(found ? 1 : 0) };
  }
  if (query.timeField === "paidAt" && (from !== undefined || to !== undefined)) {
    // Value times do not follow ordinals (a bank may notify late): a count and an offset over
    // the range of (business or account, value_at, ordinal), index-only for the count.
    const range = { timeField: "paidAt" as const, ...(from ? { from } : {}), ...(to ? { to } : {}) };
    const total = await countMatching(db, scope, range);
    const offset = (page - 1) * limit;
    const rows = offset < total ? await matchingPage(db, scope, range, offset, limit) : [];
    return { items: await viewsOf(db, rows), pagination: paging(total) };
  }
  count ??= (await lastTransaction(db, businessId))?.ordinal ?? 0;
  let low = 1;
  let high = count;
  if (from !== undefined) low = (await firstOrdinalFrom(db, scope, from)) ?? high + 1;
  if (to !== undefined) high = Math.min(high, (await lastOrdinalUpTo(db, scope, to)) ?? 0);
  const total = Math.max(0, high - low + 1);
  const upTo = high - (page - 1) * limit;
  if (upTo < low) return { items: [], pagination: paging(total) };
  const rows = await transactionPage(db, scope, Math.max(low, upTo - limit + 1), upTo);
  return { items: await viewsOf(db, rows), pagination: paging(total) };
}

/**
 * Whose transactions a query is of: the business's, or the account's with this number (current
 * or retired; another business's is 404), with how many it has.
 */
export async function scopeOf(
  db: Executor,
  businessId: string,
  accountNumber: string | undefined,
): Promise<{ scope: TransactionScope; count?: number }> {
  if (accountNumber === undefined) return { scope: { kind: "business", businessId } };
  const account = await findAccountByAnyNumber(db, businessId, accountNumber);
  if (!account) throw accountNotFound();
  return {
    scope: { kind: "account", businessId, accountId: account.id },
    count: Number(account.transferCount),
  };
}

/** The rows as the API answers them, each with what is refunded of it (one query for the page). */
export async function viewsOf(db: Executor, rows: readonly TransactionRecord[]): Promise<Transaction[]> {
  // A refund counts while its amount is out (ledger/holds.ts), as it does against the payment.
  const refunded = await refundedAmounts(
    db,
    rows.map((row) => row.id),
    AMOUNT_OUT_STATUSES,
  );
  // A credit that came in held answers as the business decided it (issue 46).
  const decisions = await heldCreditsOf(
    db,
    rows.filter((row) => row.status === "held").map((row) => row.id),
  );
  return rows.map((row) => heldView(row, decisions.get(row.id), refunded.get(row.id) ?? 0));
}

/** Whether a transaction found by its session id is in the scope and the time range asked for. */
function selects(row: TransactionRecord, scope: TransactionScope, query: TransactionQuery): boolean {
  if (row.business_id !== scope.businessId) return false;
  if (scope.kind === "account" && row.account_id !== scope.accountId) return false;
  const time = query.timeField === "paidAt" ? row.value_at : row.created_at;
  if (query.from !== undefined && time < query.from) return false;
  return query.to === undefined || time <= query.to;
}
