import { RECORD_CONFLICT } from "../statements.js";
import { TRANSACTION_COLUMNS, type TransferPosting } from "../transfer-writes.js";
import type { AnswerRecords } from "../unit-of-work.js";
import { EVENT_CTES, EVENT_SEQUENCE, eventValues } from "./event-writes.js";
import { named } from "./named.js";
import { ANSWERED_CTE, answeredValues } from "./transaction.js";

/**
 * What a transfer writes on PostgreSQL, alone (transfer-writes.ts) or in its business's batch
 * (transfer-batches.ts): the posting's statement and its values, and the look-ups' JSON.
 */

/**
 * The transaction, its entries, the heads after them, the account's totals, the request's records
 * and the event: every part of one statement, so one round trip; the foreign keys are checked at
 * its end. Selects the event's sequence.
 */
export const POST_TRANSFER = named(`with transaction_written as (
  insert into transactions (${TRANSACTION_COLUMNS.join(", ")})
  values (${TRANSACTION_COLUMNS.map((c) => `@${c}`).join(", ")})
), entries_written as (
  insert into ledger_entries
    (ledger_account_id, sequence, transaction_id, business_id, amount, balance_after, created_at, previous_hash, hash)
  select e.account, e.sequence, @id, @business_id, e.amount, e.balance_after, @created_at, e.previous_hash, e.hash
  from unnest(@entry_accounts::text[], @entry_sequences::integer[], @entry_amounts::bigint[],
              @entry_balances::bigint[], @entry_previous_hashes::text[], @entry_hashes::text[])
    as e(account, sequence, amount, balance_after, previous_hash, hash)
), heads_moved as (
  update ledger_accounts l set balance = h.balance, entry_count = h.entry_count, last_hash = h.last_hash
  from unnest(@head_ids::text[], @head_balances::bigint[], @head_entry_counts::integer[], @head_hashes::text[])
    as h(id, balance, entry_count, last_hash)
  where l.id = h.id
), account_counted as (
  update accounts set total_received = @total_received::bigint, transfer_count = @transfer_count::integer
  where id = @account_id
), ${ANSWERED_CTE}, ${EVENT_CTES}
select ${EVENT_SEQUENCE}`);

export const RECORD_TRANSFER_CONFLICT = named(RECORD_CONFLICT);

/** POST_TRANSFER's values for a posting, with the request's records to complete (if it answers). */
export function postingValues(posting: TransferPosting<unknown>, answer: AnswerRecords | undefined) {
  const { transaction, entries } = posting;
  const heads = [...posting.heads];
  return {
    ...Object.fromEntries(TRANSACTION_COLUMNS.map((column) => [column, transaction[column]])),
    entry_accounts: entries.map((e) => e.ledgerAccountId),
    entry_sequences: entries.map((e) => e.sequence),
    entry_amounts: entries.map((e) => e.amount),
    entry_balances: entries.map((e) => e.balanceAfter),
    entry_previous_hashes: entries.map((e) => e.previousHash),
    entry_hashes: entries.map((e) => e.hash),
    head_ids: heads.map((h) => h.id),
    head_balances: heads.map((h) => h.balance),
    head_entry_counts: heads.map((h) => h.entryCount),
    head_hashes: heads.map((h) => h.lastHash),
    ...answeredValues(answer),
    total_received: posting.accountTotals.total_received,
    transfer_count: posting.accountTotals.transfer_count,
    ...eventValues(posting.event),
  };
}

/**
 * A look-up's JSON, refusing an integer beyond 2^53 as the int8 parser does (database.ts): JSON
 * rounds one to a double of at least 2^53, which is never a safe integer, so none passes unseen.
 */
export function parseLookupJson<T>(text: string | undefined, what: string): T {
  if (text === undefined) throw new Error(`${what} answered no row`);
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new RangeError(`integer ${value} is beyond 2^53: refusing to round it`);
    }
    return value;
  }) as T;
}
