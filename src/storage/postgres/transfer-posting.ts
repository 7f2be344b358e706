import { RECORD_CONFLICT } from "../statements.js";
import { TRANSACTION_COLUMNS, type TransferPosting } from "../transfer-writes.js";
import type { AnswerRecords } from "../unit-of-work.js";
import { EVENT_CTES, EVENT_SEQUENCE, eventValues } from "./event-writes.js";
import { named } from "./named.js";
import { ANSWERED_CTE, answeredValues } from "./transaction.js";

/**
 * What transfers write on PostgreSQL, a business's batch or a transfer alone (a batch of one): the
 * postings' statement and its values, and the look-up's JSON.
 */

/** The ledger accounts' heads after the postings (one per ledger account, the last), as arrays. */
const HEADS_MOVED = `heads_moved as (
  update ledger_accounts l set balance = h.balance, entry_count = h.entry_count, last_hash = h.last_hash
  from unnest(@head_ids::text[], @head_balances::bigint[], @head_entry_counts::integer[], @head_hashes::text[])
    as h(id, balance, entry_count, last_hash)
  where l.id = h.id
)`;

export const RECORD_TRANSFER_CONFLICT = named(RECORD_CONFLICT);

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

/** The array type of each transaction column, for POST_TRANSFERS's unnest (text where not listed). */
const TRANSACTION_ARRAY_TYPES: Partial<Record<(typeof TRANSACTION_COLUMNS)[number], string>> = {
  ordinal: "integer",
  account_ordinal: "integer",
  amount: "bigint",
  fee: "bigint",
  net_amount: "bigint",
  balance_after: "bigint",
};

/**
 * A batch of one business's postings (transfer-batches.ts) as one statement, planned once for the
 * batch instead of once per transfer: every transaction, every entry, each ledger account's and
 * each account's state after the last of them, every request's records, and the events, their
 * sequences taken from the business's counter in the batch's order. Selects each event's id and
 * sequence, in that order.
 */
export const POST_TRANSFERS = named(`with transactions_written as (
  insert into transactions (${TRANSACTION_COLUMNS.join(", ")})
  select * from unnest(${TRANSACTION_COLUMNS.map((c) => `@t_${c}::${TRANSACTION_ARRAY_TYPES[c] ?? "text"}[]`).join(", ")})
), entries_written as (
  insert into ledger_entries
    (ledger_account_id, sequence, transaction_id, business_id, amount, balance_after, created_at, previous_hash, hash)
  select e.account, e.sequence, e.transaction_id, @business_id, e.amount, e.balance_after, e.created_at,
    e.previous_hash, e.hash
  from unnest(@entry_accounts::text[], @entry_sequences::integer[], @entry_transactions::text[],
              @entry_amounts::bigint[], @entry_balances::bigint[], @entry_created_ats::text[],
              @entry_previous_hashes::text[], @entry_hashes::text[])
    as e(account, sequence, transaction_id, amount, balance_after, created_at, previous_hash, hash)
), ${HEADS_MOVED}, accounts_counted as (
  update accounts a set total_received = c.total_received, transfer_count = c.transfer_count
  from unnest(@account_ids::text[], @account_totals::bigint[], @account_counts::integer[])
    as c(id, total_received, transfer_count)
  where a.id = c.id
), answered as (
  update request_records r set state = 'done', status_code = k.status, response = k.response
  from unnest(@record_kinds::text[], @record_keys::text[], @record_businesses::text[],
              @record_statuses::integer[], @record_responses::text[])
    as k(kind, key, business_id, status, response)
  where r.business_id = k.business_id and r.kind = k.kind and r.key = k.key
), event_sequence as (
  insert into counters (name, value) values (@event_counter, @event_count::integer)
  on conflict (name) do update set value = counters.value + excluded.value
  returning value - @event_count::integer as base
), events_written as (
  insert into events (id, business_id, sequence, type, account_number, data, created_at)
  select v.id, @business_id, s.base + v.position, v.type, v.account_number, v.data, v.created_at
  from unnest(@event_ids::text[], @event_types::text[], @event_account_numbers::text[], @event_data::text[],
              @event_created_ats::text[]) with ordinality as v(id, type, account_number, data, created_at, position)
  cross join event_sequence s
  returning id, sequence
)
select id, sequence from events_written order by sequence`);

/** POST_TRANSFERS's values: the postings of one business, in order, each with its request's records. */
export function postingsValues(
  businessId: string,
  postings: ReadonlyArray<{ posting: TransferPosting<unknown>; answer?: AnswerRecords | undefined }>,
) {
  const entries = postings.flatMap(({ posting }) =>
    posting.entries.map((entry) => ({ entry, transaction: posting.transaction })),
  );
  // Each ledger account's and account's state after the batch: the last posting's.
  const heads = new Map(postings.flatMap(({ posting }) => [...posting.heads].map((h) => [h.id, h] as const)));
  const accounts = new Map(
    postings.map(({ posting }) => [posting.transaction.account_id, posting.accountTotals]),
  );
  const records = postings.flatMap(({ answer }) =>
    answer ? answer.kinds.map((kind, i) => ({ kind, answer, i })) : [],
  );
  const events = postings.map(({ posting }) => posting.event);
  return {
    business_id: businessId,
    ...Object.fromEntries(
      TRANSACTION_COLUMNS.map((column) => [
        `t_${column}`,
        postings.map(({ posting }) => posting.transaction[column]),
      ]),
    ),
    entry_accounts: entries.map(({ entry }) => entry.ledgerAccountId),
    entry_sequences: entries.map(({ entry }) => entry.sequence),
    entry_transactions: entries.map(({ transaction }) => transaction.id),
    entry_amounts: entries.map(({ entry }) => entry.amount),
    entry_balances: entries.map(({ entry }) => entry.balanceAfter),
    entry_created_ats: entries.map(({ transaction }) => transaction.created_at),
    entry_previous_hashes: entries.map(({ entry }) => entry.previousHash),
    entry_hashes: entries.map(({ entry }) => entry.hash),
    head_ids: [...heads.values()].map((h) => h.id),
    head_balances: [...heads.values()].map((h) => h.balance),
    head_entry_counts: [...heads.values()].map((h) => h.entryCount),
    head_hashes: [...heads.values()].map((h) => h.lastHash),
    account_ids: [...accounts.keys()],
    account_totals: [...accounts.values()].map((t) => t.total_received),
    account_counts: [...accounts.values()].map((t) => t.transfer_count),
    record_kinds: records.map((r) => r.kind),
    record_keys: records.map((r) => r.answer.keys[r.i]),
    record_businesses: records.map((r) => r.answer.businessIds[r.i]),
    record_statuses: records.map((r) => r.answer.statusCode),
    record_responses: records.map((r) => r.answer.response),
    event_counter: (events[0] as TransferPosting<unknown>["event"]).counter,
    event_count: events.length,
    event_ids: events.map((e) => e.row.id),
    event_types: events.map((e) => e.row.type),
    event_account_numbers: events.map((e) => e.row.account_number),
    event_data: events.map((e) => e.row.data),
    event_created_ats: events.map((e) => e.row.created_at),
  };
}
