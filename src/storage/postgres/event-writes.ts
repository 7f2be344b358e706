import type pg from "pg";
import type { EndpointTypes, EventToWrite } from "../event-writes.js";
import { LOCK_CHAINS } from "../statements.js";
import { named } from "./named.js";

/**
 * The part of a write statement that records the event: data-modifying CTEs ending in one named
 * `event_written` (its sequence), and a select list entry `endpoints` (the business's enabled
 * endpoints, as JSON). Its parameters are eventValues' and the statement's `@business_id`. The
 * caller's statement runs it in its own round trip; `writeDeliveriesOnClient` then adds the
 * deliveries.
 */
export const EVENT_CTES = `event_sequence as (
  insert into counters (name, value) values (@event_counter, 1)
  on conflict (name) do update set value = counters.value + 1
  returning value
), event_written as (
  insert into events (id, business_id, sequence, type, account_number, data, created_at)
  select @event_id, @business_id, value, @event_type, @event_account_number, @event_data, @event_created_at
  from event_sequence
  returning sequence
)`;
export const EVENT_SELECT = `(select sequence from event_written) as event_sequence,
  (select coalesce(json_agg(json_build_object('id', id, 'event_types', event_types)), '[]'::json)
   from webhook_endpoints where business_id = @business_id and enabled = 1) as endpoints`;

/** What EVENT_CTES's statement answers about the event. */
export interface EventWritten {
  event_sequence: number;
  endpoints: EndpointTypes[];
}

/** The event's parameters for EVENT_CTES (the business id is the statement's own). */
export const eventValues = (event: EventToWrite) => ({
  event_counter: event.counter,
  event_id: event.row.id,
  event_type: event.row.type,
  event_account_number: event.row.account_number,
  event_data: event.row.data,
  event_created_at: event.row.created_at,
});

/**
 * In the transaction that wrote the event (EVENT_CTES): one pending delivery per target, joining
 * its account's chain where one is pending. The chains' advisory locks are taken first (as
 * delivery-repository.ts does), in a statement of their own so that the check that follows sees a
 * delivery settling meanwhile.
 */
export async function writeDeliveriesOnClient(
  client: pg.ClientBase,
  event: EventToWrite,
  written: EventWritten,
): Promise<void> {
  const targets = event.targets(written.endpoints);
  if (targets.length === 0) return;
  const { row } = event;
  if (row.account_number !== null) {
    await client.query(lockChains.query({ endpoint_ids: targets, account_number: row.account_number }));
  }
  await client.query(
    insertDeliveries.query({
      ids: targets.map(() => event.deliveryId()),
      endpoint_ids: targets,
      event_id: row.id,
      business_id: row.business_id,
      sequence: written.event_sequence,
      account_number: row.account_number,
      now: row.created_at,
      due: event.firstAttempt(false),
      behind_pending: event.firstAttempt(true),
    }),
  );
}

const lockChains = named(LOCK_CHAINS);
const insertDeliveries = named(`insert into webhook_deliveries
  (id, event_id, endpoint_id, business_id, sequence, account_number, state, attempts, next_attempt_at,
   lease_until, last_status, last_error, created_at, delivered_at)
select t.id, @event_id, t.endpoint_id, @business_id, @sequence, @account_number, 'pending', 0,
  case when @account_number::text is not null and exists (
    select 1 from webhook_deliveries d
    where d.endpoint_id = t.endpoint_id and d.account_number = @account_number and d.state = 'pending'
  ) then @behind_pending::text else @due::text end,
  null, null, null, @now, null
from unnest(@ids::text[], @endpoint_ids::text[]) as t(id, endpoint_id)
on conflict (event_id, endpoint_id) do nothing`);
