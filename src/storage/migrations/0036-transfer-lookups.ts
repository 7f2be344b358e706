import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 29: one business's transfers in flight are posted in one PostgreSQL transaction
// (storage/postgres/transfer-batches.ts), so this is vas_transfer_lookup (migration 0017) for
// several at once, in one call whose plans are kept per server connection.
//
// Locks, in the order every writer takes them, so that no two transactions wait on each other in
// a circle: the session ids' advisory locks (in key order), then the accounts the numbers were
// issued to (in id order), then their businesses' ledger accounts (in id order). A transfer alone
// takes one of each in the same order; payouts and settlements take ledger accounts only.
//
// What it answers (JSON text):
// - `existing`: the transactions already recorded for any of the session ids;
// - `found`: the accounts the numbers were issued to, each with `looked_up_number` (the number
//   asked for: a retired one differs from the account's own), its retirement and its business's fee;
// - `heads`: those businesses' ledger accounts, each with its `business_id`;
// - `last`: each of those businesses' newest transaction (`business_id`, `ordinal`, `created_at`),
//   read after the heads' locks, so it sees what their last holder committed.
// Nothing here writes. SQLite has nothing to gain (its writes run one at a time).

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function vas_transfer_lookups(p_session_ids text[], p_account_numbers text[]) returns text
    language plpgsql volatile as $$
    declare
      v_existing jsonb;
      v_found jsonb;
      v_heads jsonb;
      v_last jsonb;
    begin
      perform pg_advisory_xact_lock(k) from (
        select distinct hashtextextended('vas:session:' || s, 0) as k from unnest(p_session_ids) as s order by k
      ) as sessions;
      select coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb) into v_existing
      from transactions t where t.session_id = any(p_session_ids);
      select coalesce(jsonb_agg(to_jsonb(f)), '[]'::jsonb) into v_found from (
        select a.*, n.account_number as looked_up_number, n.retired_at as number_retired_at,
          b.fee_basis_points, b.fee_cap_kobo
        from account_numbers n
        join accounts a on a.id = n.account_id
        join businesses b on b.id = a.business_id
        where n.account_number = any(p_account_numbers)
        order by a.id
        for update of a
      ) f;
      select coalesce(jsonb_agg(to_jsonb(h) order by h.id), '[]'::jsonb) into v_heads from (
        select l.id, l.business_id, l.kind, l.balance, l.entry_count, l.last_hash
        from ledger_accounts l
        where l.business_id in (select f->>'business_id' from jsonb_array_elements(v_found) as f)
        order by l.id
        for update
      ) h;
      select coalesce(jsonb_agg(to_jsonb(x)), '[]'::jsonb) into v_last from (
        select b.id as business_id, t.ordinal, t.created_at
        from (select distinct f->>'business_id' as id from jsonb_array_elements(v_found) as f) b
        cross join lateral (
          select t.ordinal, t.created_at from transactions t
          where t.business_id = b.id order by t.ordinal desc limit 1
        ) t
      ) x;
      return jsonb_build_object('existing', v_existing, 'found', v_found, 'heads', v_heads, 'last', v_last)::text;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_transfer_lookups(text[], text[])`.execute(db);
}
