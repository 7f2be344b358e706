import { type Kysely, PostgresAdapter, sql } from "kysely";

// Issue 29: a transfer or a re-issue on PostgreSQL reads its business's enabled webhook endpoints
// with its BEGIN (storage/postgres/event-writes.ts), to know before the event's statement whether
// any delivery is due. As a statement of its own, sent unnamed (a transaction pooler allows no
// named statement), it was planned at every transfer: pg_stat_statements measured 0.18 ms of
// planning against 0.02 ms of execution. In PL/pgSQL its plan is kept per server connection, as
// vas_transfer_lookup's are (migration 0017). What they answer is the EndpointTypes JSON the
// event's code reads: the enabled endpoints' ids and event types, `[]` for none (or an unknown
// number). SQLite has nothing to gain (its statements are prepared once).

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function vas_endpoints_of_business(p_business_id text) returns json
    language plpgsql stable as $$
    declare
      v_endpoints json;
    begin
      select coalesce(json_agg(json_build_object('id', e.id, 'event_types', e.event_types)), '[]'::json)
        into v_endpoints
      from webhook_endpoints e
      where e.business_id = p_business_id and e.enabled = 1;
      return v_endpoints;
    end
    $$`.execute(db);
  await sql`
    create function vas_endpoints_of_number(p_account_number text) returns json
    language plpgsql stable as $$
    declare
      v_business_id text;
    begin
      select a.business_id into v_business_id
      from account_numbers n join accounts a on a.id = n.account_id
      where n.account_number = p_account_number;
      if v_business_id is null then
        return '[]'::json;
      end if;
      return vas_endpoints_of_business(v_business_id);
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function vas_endpoints_of_number(text)`.execute(db);
  await sql`drop function vas_endpoints_of_business(text)`.execute(db);
}
