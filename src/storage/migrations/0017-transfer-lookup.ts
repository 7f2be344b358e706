import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 25: a transfer's lookups in one round trip on PostgreSQL, with plans that are kept.
//
// Behind a transaction pooler no statement may be prepared by name (a name outlives the
// transaction, the server connection does not stay with the client), so every statement a
// transfer sends was parsed and planned again each time, and its five lookups were five round
// trips, each one while the business's ledger rows were locked. This function takes them in
// one call, in the same order and under the same locks: PL/pgSQL keeps each statement's plan
// for the life of the server connection (which a pooler keeps open), and, the function being
// VOLATILE, each statement in it reads a fresh snapshot, so a read after a lock sees what the
// lock's holder committed, as separate statements did.
//
// What it answers (as JSON text; storage/postgres/transfer-writes.ts reads it):
// - `existing`: the transaction already recorded for the session id (nothing else is read);
// - otherwise `found`: the account the number was issued to, locked, with the number's
//   retirement and its business's fee (absent: no such number), and then the business's
//   ledger heads, locked in id order, and its newest transaction.
// What to make of them is decided by the domain, as before; nothing here writes.
// SQLite has nothing to gain (its statements are prepared once and its writes run one at a time).

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function vas_transfer_lookup(p_session_id text, p_account_number text) returns text
    language plpgsql volatile as $$
    declare
      v_existing jsonb;
      v_found jsonb;
      v_heads jsonb;
      v_last jsonb;
    begin
      -- Recordings of one session id take turns.
      perform pg_advisory_xact_lock(hashtextextended('vas:session:' || p_session_id, 0));
      select to_jsonb(t) into v_existing from transactions t where t.session_id = p_session_id;
      if v_existing is not null then
        return jsonb_build_object('existing', v_existing)::text;
      end if;
      -- Transfers into one account take turns on its row.
      select to_jsonb(f) into v_found from (
        select a.*, n.retired_at as number_retired_at, b.fee_basis_points, b.fee_cap_kobo
        from account_numbers n
        join accounts a on a.id = n.account_id
        join businesses b on b.id = a.business_id
        where n.account_number = p_account_number
        for update of a
      ) f;
      if v_found is null then
        return '{}';
      end if;
      -- One business's transfers take turns on its ledger accounts, always locked in id order.
      select coalesce(jsonb_agg(to_jsonb(h) order by h.id), '[]'::jsonb) into v_heads from (
        select l.id, l.kind, l.balance, l.entry_count, l.last_hash
        from ledger_accounts l
        where l.business_id = v_found->>'business_id'
        order by l.id
        for update
      ) h;
      -- Read after the heads' lock, so it sees the transfer that held it.
      select to_jsonb(x) into v_last from (
        select t.ordinal, t.created_at from transactions t
        where t.business_id = v_found->>'business_id'
        order by t.ordinal desc limit 1
      ) x;
      return jsonb_build_object('found', v_found, 'heads', v_heads, 'last', v_last)::text;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_transfer_lookup(text, text)`.execute(db);
}
