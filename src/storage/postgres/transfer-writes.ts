import type pg from "pg";
import { GENESIS_HASH } from "../../ledger/posting.js";
import type { PostgresStorage } from "../database.js";
import { LAST_TRANSACTION, LEDGER_HEADS, RECORD_CONFLICT } from "../statements.js";
import type { TransactionRow } from "../transaction-repository.js";
import {
  conflictRow,
  destination,
  type FoundRow,
  type HeadRow,
  headMap,
  type LedgerState,
  OUTCOME_ANSWERS,
  TRANSACTION_COLUMNS,
  type TransferDecisions,
  type TransferKeys,
  type TransferOutcome,
  type TransferWrites,
} from "../transfer-writes.js";
import type { UnitOfWork } from "../unit-of-work.js";
import {
  commitEvent,
  ENDPOINTS_OF_NUMBER,
  EVENT_CTES,
  EVENT_SEQUENCE,
  endpointsRead,
  eventValues,
} from "./event-writes.js";
import { inlineStatement } from "./inline.js";
import { type NamedStatement, named } from "./named.js";
import { ANSWERED_CTE, answeredValues, clientTransaction } from "./transaction.js";

/**
 * Ingestion on PostgreSQL: one transaction of statements, the posting itself one round trip.
 * Ingestions of one session id take turns on an advisory lock, transfers into one account on its
 * row, and one business's transfers on its ledger accounts' rows.
 */
export function postgresTransferWrites(storage: PostgresStorage): TransferWrites {
  return { ingest: (transfer, decide, unit) => ingest(storage, transfer, decide, unit) };
}

function ingest<R>(
  storage: PostgresStorage,
  { sessionId, accountNumber, now }: TransferKeys,
  decide: TransferDecisions<R>,
  unit: UnitOfWork | undefined,
): Promise<TransferOutcome<R>> {
  return clientTransaction<TransferOutcome<R>>(
    storage,
    unit,
    async ({ client, answerFor, opened: [looked, enabled], commitWith }) => {
      const run = <Row extends pg.QueryResultRow>(
        statement: NamedStatement,
        values: Record<string, unknown>,
      ) => client.query<Row>(statement.query(values));
      const lookup = parseLookup((looked?.rows[0] as { lookup?: string } | undefined)?.lookup);
      if (lookup.existing) {
        const seen = decide.again(lookup.existing);
        if ("duplicate" in seen) return { result: seen.duplicate };
        await run(STATEMENTS.recordConflict, conflictRow(seen.conflict));
        // Kept, and committed without an answer (OUTCOME_ANSWERS).
        return seen;
      }
      const found = destination(lookup.found);
      let ledger: LedgerState | undefined;
      if (found) {
        const business_id = found.account.business_id;
        let heads = lookup.heads ?? [];
        let last = lookup.last ?? undefined;
        const accounts = decide.ledgerAccounts(business_id);
        if (heads.length < accounts.length) {
          await run(STATEMENTS.createHeads, {
            business_id,
            now,
            ids: accounts.map((a) => a.id),
            kinds: accounts.map((a) => a.kind),
            currencies: accounts.map((a) => a.currency),
          });
          heads = (await run<HeadRow>(STATEMENTS.heads, { business_id })).rows;
          last = (await run<NonNullable<LedgerState["last"]>>(STATEMENTS.last, { business_id })).rows[0];
        }
        ledger = { fee: found.fee, heads: headMap(heads), last };
      }
      const posting = decide.post(found && ledger && { ...found, ledger });
      const outcome = { result: posting.result };
      const { transaction, entries } = posting;
      const heads = [...posting.heads];
      const values = {
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
        ...answeredValues(answerFor(outcome)),
        total_received: posting.accountTotals.total_received,
        transfer_count: posting.accountTotals.transfer_count,
        ...eventValues(posting.event),
      };
      // Read with the look-up, under its locks, as the statement itself would read them.
      const endpoints = endpointsRead(enabled);
      await commitEvent({ client, commitWith }, STATEMENTS.post, values, posting.event, endpoints);
      return outcome;
    },
    OUTCOME_ANSWERS,
    // With BEGIN: the look-up's locks are taken in the transaction, and the business's endpoints
    // read after them, at no round trip of their own.
    [
      inlineStatement(STATEMENTS.lookup, { session_id: sessionId, account_number: accountNumber }),
      inlineStatement(ENDPOINTS_OF_NUMBER, { account_number: accountNumber }),
    ],
  );
}

/** What vas_transfer_lookup answers (migration 0017): the rows the separate statements would. */
interface Lookup {
  existing?: TransactionRow;
  found?: FoundRow;
  heads?: HeadRow[];
  last?: LedgerState["last"] | null;
}

/**
 * The lookup's JSON, refusing an integer beyond 2^53 as the int8 parser does (database.ts): JSON
 * rounds one to a double of at least 2^53, which is never a safe integer, so none passes unseen.
 */
export function parseLookup(text: string | undefined): Lookup {
  if (text === undefined) throw new Error("vas_transfer_lookup answered no row");
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new RangeError(`integer ${value} is beyond 2^53: refusing to round it`);
    }
    return value;
  }) as Lookup;
}

const STATEMENTS = {
  // The session's lock and recording, the account (locked), the business's heads (locked) and
  // newest transaction: one call, its plans kept per server connection (migration 0017).
  lookup: named("select vas_transfer_lookup(@session_id, @account_number) as lookup"),
  // A business's first transfer creates its ledger accounts, then reads them as the lookup does.
  heads: named(`${LEDGER_HEADS} for update`),
  // A business's first two transfers may race to create its accounts: the loser's rows conflict
  // on the id or on (business_id, kind), whichever index PostgreSQL checks first, so no target.
  createHeads:
    named(`insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
    select a.id, @business_id, a.kind, a.currency, 0, 0, '${GENESIS_HASH}', @now
    from unnest(@ids::text[], @kinds::text[], @currencies::text[]) as a(id, kind, currency)
    on conflict do nothing`),
  // Read after the heads' lock, in a statement of its own, so it sees the transfer that held it.
  last: named(LAST_TRANSACTION),
  recordConflict: named(RECORD_CONFLICT),
  // The transaction, its entries, the heads after them, the account's totals, the request's
  // records and the event: every part of one statement, so one round trip; the foreign keys are
  // checked at its end.
  post: named(`with transaction_written as (
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
select ${EVENT_SEQUENCE}`),
};
