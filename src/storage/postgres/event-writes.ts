import type pg from "pg";
import type { EndpointTypes, EventToWrite } from "../../core/event-to-write.js";
import { LOCK_CHAINS } from "../statements.js";
import { inlineStatement } from "./inline.js";
import { type NamedStatement, named } from "./named.js";
import type { ClientWork } from "./transaction.js";

/**
 * The part of a write statement that records its events (one, or a batch's): data-modifying CTEs
 * ending in `events_written`, their sequences taken from the business's counter in the given
 * order, whose ids and sequences the statement selects (EVENT_SEQUENCES). Its parameters are
 * eventsValues' and the statement's `@business_id`. The business's enabled endpoints are read
 * before, with the transaction's BEGIN (ENDPOINTS_OF_*): with none the events are for, the
 * statement and COMMIT go in one message (commitEvent).
 */
export const EVENTS_WRITTEN = `event_sequence as (
  insert into counters (name, value) values (@event_counter, @event_count::integer)
  on conflict (name) do update set value = counters.value + excluded.value
  returning value - @event_count::integer as base
), events_written as (
  insert into events (id, business_id, sequence, type, account_number, data, created_at)
  select v.id, @business_id, s.base + v.position, v.type, v.account_number, v.data, v.created_at
  from unnest(@event_ids::text[], @event_types::text[], @event_account_numbers::text[], @event_data::text[],
              @event_created_ats::text[]) with ordinality as v(id, type, account_number, data, created_at, position)
  cross join event_sequence s
  returning id, sequence
)`;
/** The select that ends EVENTS_WRITTEN's statement: each event's id and sequence, in order. */
export const EVENT_SEQUENCES = "select id, sequence from events_written order by sequence";

/** EVENTS_WRITTEN's parameters for events of one business, in order (the business id is the statement's own). */
export const eventsValues = (events: readonly EventToWrite[]) => ({
  event_counter: (events[0] as EventToWrite).counter,
  event_count: events.length,
  event_ids: events.map((e) => e.row.id),
  event_types: events.map((e) => e.row.type),
  event_account_numbers: events.map((e) => e.row.accountNumber),
  event_data: events.map((e) => e.row.data),
  event_created_ats: events.map((e) => e.row.createdAt),
});

/**
 * The enabled endpoints of a business (`endpoints`, as EndpointTypes JSON), by its id or by an
 * account number issued to it (none for an unknown number): read with the transaction's BEGIN,
 * so that when no delivery is due the event's statement and COMMIT go in one message
 * (commitEvent). Functions, so their plans are kept per server connection (migration 0035).
 */
export const ENDPOINTS_OF_BUSINESS = named("select vas_endpoints_of_business(@business_id) as endpoints");
export const ENDPOINTS_OF_NUMBER = named("select vas_endpoints_of_number(@account_number) as endpoints");

/** The endpoints an opening's ENDPOINTS_OF_* statement read (none when it read no row). */
export const endpointsRead = (result: pg.QueryResult | undefined): EndpointTypes[] =>
  (
    (result?.rows[0] as { endpoints?: { id: string; event_types: string | null }[] } | undefined)
      ?.endpoints ?? []
  ).map((endpoint) => ({ id: endpoint.id, eventTypes: endpoint.event_types }));

/**
 * Sends the statement that writes the event (EVENTS_WRITTEN, selecting EVENT_SEQUENCES), and ends the
 * transaction. With no endpoint the event is for, the statement and COMMIT go in one message.
 * Otherwise the statement, then, in one message, the chains' advisory locks (as
 * delivery-repository.ts takes them), one pending delivery per target, joining its account's chain
 * where one is pending, and COMMIT: the locks in a statement of their own, and each statement of a
 * message reads a fresh snapshot, so the check that follows sees a delivery settling meanwhile.
 */
export async function commitEvent(
  { client, commitWith }: Pick<ClientWork<unknown>, "client" | "commitWith">,
  statement: NamedStatement,
  values: Readonly<Record<string, unknown>>,
  event: EventToWrite,
  endpoints: readonly EndpointTypes[],
): Promise<void> {
  const targets = event.targets(endpoints);
  if (targets.length === 0) {
    await commitWith(inlineStatement(statement, values));
    return;
  }
  const written = await client.query<{ sequence: number }>(statement.query(values));
  await commitWith(deliveryStatements(event, targets, sequenceOf(written)).join("; "));
}

/** The event's sequence, as EVENT_SEQUENCES selected it. */
const sequenceOf = (written: pg.QueryResult): number =>
  Number((written.rows[0] as { sequence: number }).sequence);

/**
 * The statements, values written in, that queue the event (written with `sequence`) for its
 * targets: the chains' advisory locks, then one pending delivery per target (see commitEvent).
 */
export function deliveryStatements(
  event: EventToWrite,
  targets: readonly string[],
  sequence: number,
): string[] {
  const { row } = event;
  const statements =
    row.accountNumber === null
      ? []
      : [inlineStatement(lockChains, { endpoint_ids: targets, account_number: row.accountNumber })];
  statements.push(
    inlineStatement(insertDeliveries, {
      ids: targets.map(() => event.deliveryId()),
      endpoint_ids: targets,
      event_id: row.id,
      business_id: row.businessId,
      sequence,
      account_number: row.accountNumber,
      now: row.createdAt,
      due: event.firstAttempt(false),
      behind_pending: event.firstAttempt(true),
    }),
  );
  return statements;
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
