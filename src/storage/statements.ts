// The hot path's statements that both dialects run as they are, written once with named
// parameters (`@name`): better-sqlite3 binds them from an object; postgres/named.ts numbers them
// for node-postgres.

/**
 * A conflicting notification kept, or counted again: the same session id with another account,
 * amount or currency than its first recording.
 */
export const RECORD_CONFLICT = `insert into transfer_conflicts
  (id, session_id, transaction_id, business_id, account_number, amount, currency, attempts, first_seen_at, last_seen_at)
  values (@id, @session_id, @transaction_id, @business_id, @account_number, @amount, @currency, 1, @now, @now)
  on conflict (session_id, account_number, amount, currency)
  do update set attempts = transfer_conflicts.attempts + 1, last_seen_at = excluded.last_seen_at`;

/** A business's ledger accounts' heads, in id order (the order PostgreSQL locks them in). */
export const LEDGER_HEADS =
  "select id, kind, balance, entry_count, last_hash from ledger_accounts where business_id = @business_id order by id";

/** A business's newest transaction. */
export const LAST_TRANSACTION =
  "select ordinal, created_at from transactions where business_id = @business_id order by ordinal desc limit 1";

/**
 * PostgreSQL: the advisory locks of delivery chains (endpoint and account), transaction-scoped,
 * taken in one global order (by key) so that two transactions never wait on each other in a
 * cycle (see delivery-repository.ts). SQLite's writes run one at a time and need none.
 */
export const LOCK_CHAINS = `select pg_advisory_xact_lock(k) from (
  select hashtextextended(e || ':' || @account_number, 0) as k from unnest(@endpoint_ids::text[]) as e order by k
) as chains`;
