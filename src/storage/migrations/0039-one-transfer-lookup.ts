import { type Kysely, PostgresAdapter, sql } from "kysely";
import { up as createSingleLookup } from "./0017-transfer-lookup.js";
import { up as createBatchLookup } from "./0036-transfer-lookups.js";

// Issue 45: a transfer alone is a batch of one (storage/postgres/transfer-writes.ts), looked up by
// vas_transfer_lookups like a batch, so vas_transfer_lookup (0017), a second function for the
// same locks and reads, has no caller: dropped, so that the schema holds one.
//
// Most batches are of one transfer (a business's transfers in flight rarely meet), and the
// batch's statements over arrays, each aggregated to JSON, cost PostgreSQL more for one than the
// single look-up did (docs/performance.md): for one session id the function now takes the single
// path inside it, the same locks in the same order, stopping at the first answer (a session id
// recorded before needs nothing more), and answers in the batch's shape.

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_transfer_lookup(text, text)`.execute(db);
  await sql`
    create or replace function vas_transfer_lookups(p_session_ids text[], p_account_numbers text[]) returns text
    language plpgsql volatile as $$
    declare
      v_existing jsonb;
      v_found jsonb;
      v_heads jsonb;
      v_last jsonb;
      v_business text;
    begin
      if cardinality(p_session_ids) = 1 then
        perform pg_advisory_xact_lock(hashtextextended('vas:session:' || p_session_ids[1], 0));
        select to_jsonb(t) into v_existing from transactions t where t.session_id = p_session_ids[1];
        if v_existing is not null then
          return jsonb_build_object('existing', jsonb_build_array(v_existing), 'found', '[]'::jsonb,
            'heads', '[]'::jsonb, 'last', '[]'::jsonb)::text;
        end if;
        select to_jsonb(f) into v_found from (
          select a.*, n.account_number as looked_up_number, n.retired_at as number_retired_at,
            b.fee_basis_points, b.fee_cap_kobo
          from account_numbers n
          join accounts a on a.id = n.account_id
          join businesses b on b.id = a.business_id
          where n.account_number = p_account_numbers[1]
          for update of a
        ) f;
        if v_found is null then
          return jsonb_build_object('existing', '[]'::jsonb, 'found', '[]'::jsonb,
            'heads', '[]'::jsonb, 'last', '[]'::jsonb)::text;
        end if;
        v_business := v_found->>'business_id';
        select coalesce(jsonb_agg(to_jsonb(h) order by h.id), '[]'::jsonb) into v_heads from (
          select l.id, l.business_id, l.kind, l.balance, l.entry_count, l.last_hash
          from ledger_accounts l
          where l.business_id = v_business
          order by l.id
          for update
        ) h;
        select coalesce(jsonb_agg(to_jsonb(x)), '[]'::jsonb) into v_last from (
          select t.business_id, t.ordinal, t.created_at from transactions t
          where t.business_id = v_business
          order by t.ordinal desc limit 1
        ) x;
        return jsonb_build_object('existing', '[]'::jsonb, 'found', jsonb_build_array(v_found),
          'heads', v_heads, 'last', v_last)::text;
      end if;
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
  await createBatchLookup(db);
  await createSingleLookup(db);
}
