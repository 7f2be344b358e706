import { RECORD_CONFLICT } from "../statements.js";
import { TRANSACTION_COLUMNS, type TransferPosting } from "../transfer-writes.js";
import type { AnswerRecords } from "../unit-of-work.js";
import { ANSWERED, recordsValues } from "./answered.js";
import { EVENT_SEQUENCES, EVENTS_WRITTEN, eventsValues } from "./event-writes.js";
import { keptPlans } from "./kept-plans.js";
import { ENTRIES_WRITTEN, HEADS_MOVED, ledgerValues } from "./ledger-writes.js";
import { named } from "./named.js";

/**
 * What transfers write on PostgreSQL, a business's batch or a transfer alone (a batch of one): the
 * postings' statement and its values, and the look-up's JSON.
 */

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
  vat: "bigint",
  stamp_duty: "bigint",
  net_amount: "bigint",
  balance_after: "bigint",
};

/**
 * A batch of one business's postings (transfer-batches.ts) as one statement, planned once for the
 * batch instead of once per transfer: every transaction, every entry, each ledger account's and
 * each account's state after the last of them, every request's records, and the events, their
 * sequences taken from the business's counter in the batch's order. Selects each event's id and
 * sequence, in that order. Run as vas_post_transfers (POST_TRANSFERS), whose plan the server keeps.
 */
const POSTINGS = named(`with transactions_written as (
  insert into transactions (${TRANSACTION_COLUMNS.join(", ")})
  select * from unnest(${TRANSACTION_COLUMNS.map((c) => `@t_${c}::${TRANSACTION_ARRAY_TYPES[c] ?? "text"}[]`).join(", ")})
), ${ENTRIES_WRITTEN}, ${HEADS_MOVED}, accounts_counted as (
  update accounts a set total_received = c.total_received, transfer_count = c.transfer_count,
    received_day = c.received_day, received_on_day = c.received_on_day
  from unnest(@account_ids::text[], @account_totals::bigint[], @account_counts::integer[],
    @account_days::text[], @account_day_totals::bigint[])
    as c(id, total_received, transfer_count, received_day, received_on_day)
  where a.id = c.id
), ${ANSWERED}, ${EVENTS_WRITTEN}
${EVENT_SEQUENCES}`);

/**
 * POSTINGS as the function vas_post_transfers (migration 0040), and its call, POST_TRANSFERS: the
 * statement, some 45 arrays over seven tables, cost PostgreSQL more to parse and plan than to run
 * for the batch of one most transfers are (docs/performance.md); in the function its plan is kept
 * per server connection. Taking the same values, answering the same rows.
 */
export const POSTINGS_FUNCTION = keptPlans("vas_post_transfers", POSTINGS, "id text, sequence integer");
export const POST_TRANSFERS = POSTINGS_FUNCTION.call;

/** POST_TRANSFERS's values (POSTINGS'): the postings of one business, in order, each with its request's records. */
export function postingsValues(
  businessId: string,
  postings: ReadonlyArray<{ posting: TransferPosting<unknown>; answer?: AnswerRecords | undefined }>,
) {
  const accounts = new Map(
    postings.map(({ posting }) => [posting.transaction.account_id, posting.accountTotals]),
  );
  return {
    business_id: businessId,
    ...Object.fromEntries(
      TRANSACTION_COLUMNS.map((column) => [
        `t_${column}`,
        postings.map(({ posting }) => posting.transaction[column]),
      ]),
    ),
    ...ledgerValues(
      postings.map(({ posting }) => ({
        ...posting,
        id: posting.transaction.id,
        businessId: posting.transaction.business_id,
      })),
    ),
    account_ids: [...accounts.keys()],
    account_totals: [...accounts.values()].map((t) => t.total_received),
    account_counts: [...accounts.values()].map((t) => t.transfer_count),
    account_days: [...accounts.values()].map((t) => t.received_day),
    account_day_totals: [...accounts.values()].map((t) => t.received_on_day),
    ...recordsValues(postings),
    ...eventsValues(postings.map(({ posting }) => posting.event)),
  };
}
