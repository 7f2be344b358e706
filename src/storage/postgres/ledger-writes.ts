import type { LedgerPosting } from "../../ledger/ledger-port.js";
import { GENESIS_HASH } from "../../ledger/posting.js";
import { namedSql } from "../named-sql.js";
import type { LedgerWrites } from "../payout-writes.js";
import { LEDGER_HEADS } from "../statements.js";
import { type HeadRow, openedHeads } from "../transfer-writes.js";

/**
 * PostgreSQL's ledger writes, each spelled once: a transfer's batch runs them in its statements
 * (transfer-writes.ts, transfer-posting.ts), a payout's transaction through the query builder
 * (`postgresLedgerWrites`).
 */

/**
 * Opens the ledger accounts a business lacks. A business's first two postings may race to open
 * them: the loser's rows conflict on the id or on (business_id, kind), whichever index PostgreSQL
 * checks first, so no target.
 */
export const OPEN_LEDGER = `insert into ledger_accounts (id, business_id, kind, currency, balance, entry_count, last_hash, created_at)
  select a.id, @business_id, a.kind, a.currency, 0, 0, '${GENESIS_HASH}', @now
  from unnest(@ids::text[], @kinds::text[], @currencies::text[]) as a(id, kind, currency)
  on conflict do nothing`;

/** A business's heads, locked for the transaction in id order. */
export const LOCKED_HEADS = `${LEDGER_HEADS} for update`;

/** The postings' entries (ENTRY_VALUES), as part of a statement. */
export const ENTRIES_WRITTEN = `entries_written as (
  insert into ledger_entries
    (ledger_account_id, sequence, transaction_id, business_id, amount, balance_after, created_at, previous_hash, hash)
  select e.account, e.sequence, e.transaction_id, @business_id, e.amount, e.balance_after, e.created_at,
    e.previous_hash, e.hash
  from unnest(@entry_accounts::text[], @entry_sequences::integer[], @entry_transactions::text[],
              @entry_amounts::bigint[], @entry_balances::bigint[], @entry_created_ats::text[],
              @entry_previous_hashes::text[], @entry_hashes::text[])
    as e(account, sequence, transaction_id, amount, balance_after, created_at, previous_hash, hash)
)`;

/** The ledger accounts' heads after the postings (one per ledger account, the last), as part of a statement. */
export const HEADS_MOVED = `heads_moved as (
  update ledger_accounts l set balance = h.balance, entry_count = h.entry_count, last_hash = h.last_hash
  from unnest(@head_ids::text[], @head_balances::bigint[], @head_entry_counts::integer[], @head_hashes::text[])
    as h(id, balance, entry_count, last_hash)
  where l.id = h.id
)`;

/** ENTRIES_WRITTEN's and HEADS_MOVED's values for postings of one business, in order. */
export function ledgerValues(postings: readonly LedgerPosting[]) {
  const entries = postings.flatMap((posting) => posting.entries.map((entry) => ({ entry, id: posting.id })));
  // Each ledger account's head after the postings: the last posting's.
  const heads = [
    ...new Map(postings.flatMap((posting) => [...posting.heads].map((h) => [h.id, h] as const))).values(),
  ];
  return {
    entry_accounts: entries.map(({ entry }) => entry.ledgerAccountId),
    entry_sequences: entries.map(({ entry }) => entry.sequence),
    entry_transactions: entries.map(({ id }) => id),
    entry_amounts: entries.map(({ entry }) => entry.amount),
    entry_balances: entries.map(({ entry }) => entry.balanceAfter),
    entry_created_ats: entries.map(({ entry }) => entry.createdAt),
    entry_previous_hashes: entries.map(({ entry }) => entry.previousHash),
    entry_hashes: entries.map(({ entry }) => entry.hash),
    head_ids: heads.map((h) => h.id),
    head_balances: heads.map((h) => h.balance),
    head_entry_counts: heads.map((h) => h.entryCount),
    head_hashes: heads.map((h) => h.lastHash),
  };
}

/** OPEN_LEDGER's values. */
export const openingValues = (
  businessId: string,
  accounts: ReadonlyArray<{ id: string; kind: string; currency: string }>,
  now: string,
) => ({
  business_id: businessId,
  now,
  ids: accounts.map((a) => a.id),
  kinds: accounts.map((a) => a.kind),
  currencies: accounts.map((a) => a.currency),
});

const POST_LEDGER = `with ${ENTRIES_WRITTEN}, ${HEADS_MOVED} select 1`;

/** The ledger port on PostgreSQL, for a query builder's transaction: the same statements. */
export const postgresLedgerWrites: LedgerWrites = {
  lockedHeads: (trx, businessId, accounts, now) =>
    openedHeads(
      async () => (await namedSql<HeadRow>(LOCKED_HEADS, { business_id: businessId }).execute(trx)).rows,
      () => namedSql(OPEN_LEDGER, openingValues(businessId, accounts, now)).execute(trx),
      accounts.length,
    ),
  async post(trx, postings) {
    const first = postings[0];
    if (first === undefined) return;
    await namedSql(POST_LEDGER, { business_id: first.businessId, ...ledgerValues(postings) }).execute(trx);
  },
};
