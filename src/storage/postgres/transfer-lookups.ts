// vas_transfer_lookups, the transfers' look-up on PostgreSQL (transfer-writes.ts calls it): made
// by migration 0039, and again by 0043 with the charge schedule's columns.
// Both migrations run this text, and an installed database already ran them: it never changes. A
// look-up that must change is a migration with a text of its own.

/**
 * `create or replace function vas_transfer_lookups …` as migration 0039 made it, with `columns`
 * added to the account's row (after the business's fee) and `join` to the tables it is read from
 * (0043: the charge schedule).
 */
export const transferLookups = (
  columns: string,
  join: string,
): string => `create or replace function vas_transfer_lookups(p_session_ids text[], p_account_numbers text[]) returns text
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
        b.fee_basis_points, b.fee_cap_kobo${columns}
      from account_numbers n
      join accounts a on a.id = n.account_id
      join businesses b on b.id = a.business_id${join}
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
      b.fee_basis_points, b.fee_cap_kobo${columns}
    from account_numbers n
    join accounts a on a.id = n.account_id
    join businesses b on b.id = a.business_id${join}
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
$$`;
