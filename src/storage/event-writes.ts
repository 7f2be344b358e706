import type SqliteDatabase from "better-sqlite3";
import type pg from "pg";
import { UNSCHEDULED } from "./delivery-repository.js";
import type { EventRow } from "./event-repository.js";
import { prepared } from "./prepared.js";

/** An enabled endpoint of the business, with the event types it takes (JSON; null: every type). */
export interface EndpointTypes {
  id: string;
  event_types: string | null;
}

/**
 * An event for the hot path's writers (outbox.ts builds it): the row less its sequence, which
 * storage assigns from the business's counter, and the domain's choice of endpoints.
 */
export interface EventToWrite {
  row: Omit<EventRow, "sequence">;
  /** The counter behind the business's event sequence. */
  counter: string;
  /** Which of the business's enabled endpoints get a delivery. */
  targets(enabled: readonly EndpointTypes[]): string[];
  deliveryId(): string;
}

/**
 * SQLite, inside a synchronous write: the event (the next sequence of its business) and one
 * pending delivery per target endpoint, on statements prepared once. A delivery joins its
 * account's chain (see delivery-repository.ts) when the endpoint has a pending one already. The
 * write transaction runs alone, so nothing settles a chain meanwhile.
 */
export function writeEventNow(db: SqliteDatabase.Database, event: EventToWrite): EventRow {
  const { value } = prepared(db, ADVANCE_COUNTER).get(event.counter) as { value: number };
  const row: EventRow = { ...event.row, sequence: value };
  prepared(db, INSERT_EVENT).run(row);
  const enabled = prepared(db, ENABLED_ENDPOINTS).all(row.business_id) as EndpointTypes[];
  for (const endpointId of event.targets(enabled)) {
    const chained =
      row.account_number !== null &&
      prepared(db, CHAIN_PENDING).get(endpointId, row.account_number) !== undefined;
    prepared(db, INSERT_DELIVERY).run({
      id: event.deliveryId(),
      event_id: row.id,
      endpoint_id: endpointId,
      business_id: row.business_id,
      sequence: row.sequence,
      account_number: row.account_number,
      next_attempt_at: chained ? UNSCHEDULED : row.created_at,
      created_at: row.created_at,
    });
  }
  return row;
}

/**
 * PostgreSQL, the part of a write statement that records the event: a data-modifying CTE named
 * `event_written` (its sequence) and a select list entry `endpoints` (the enabled endpoints, as
 * JSON), given the positions of the event's parameters. The caller's statement runs it in its
 * own round trip; `writeDeliveriesOnClient` then adds the deliveries.
 */
export function eventCte(p: { counter: number; id: number; business: number; row: number }) {
  const $ = (n: number) => `$${n}`;
  const r = p.row; // type, account_number, data, created_at: four parameters from here
  return {
    ctes: `event_sequence as (
  insert into counters (name, value) values (${$(p.counter)}, 1)
  on conflict (name) do update set value = counters.value + 1
  returning value
), event_written as (
  insert into events (id, business_id, sequence, type, account_number, data, created_at)
  select ${$(p.id)}, ${$(p.business)}, value, ${$(r)}, ${$(r + 1)}, ${$(r + 2)}, ${$(r + 3)} from event_sequence
  returning sequence
)`,
    select: `(select sequence from event_written) as event_sequence,
  (select coalesce(json_agg(json_build_object('id', id, 'event_types', event_types)), '[]'::json)
   from webhook_endpoints where business_id = ${$(p.business)} and enabled = 1) as endpoints`,
  };
}

/** The event's parameters for eventCte, in its order from `row`: type, account_number, data, created_at. */
export const eventRowValues = (event: EventToWrite) => [
  event.row.type,
  event.row.account_number,
  event.row.data,
  event.row.created_at,
];

/**
 * PostgreSQL, in the transaction that wrote the event (eventCte): one pending delivery per target,
 * joining its account's chain where one is pending. The chains' advisory locks are taken first,
 * in one global order (as delivery-repository.ts's lockChains does), in a statement of their own
 * so that the check that follows sees a delivery settling meanwhile.
 */
export async function writeDeliveriesOnClient(
  client: pg.ClientBase,
  event: EventToWrite,
  sequence: number,
  enabled: readonly EndpointTypes[],
): Promise<void> {
  const targets = event.targets(enabled);
  if (targets.length === 0) return;
  const { row } = event;
  if (row.account_number !== null) {
    await client.query({ text: LOCK_CHAINS, values: [targets, row.account_number] });
  }
  await client.query({
    text: INSERT_DELIVERIES,
    values: [
      targets.map(() => event.deliveryId()),
      targets,
      row.id,
      row.business_id,
      sequence,
      row.account_number,
      row.created_at,
      UNSCHEDULED,
    ],
  });
}

const ADVANCE_COUNTER = `insert into counters (name, value) values (?, 1)
  on conflict (name) do update set value = counters.value + 1 returning value`;
const INSERT_EVENT = `insert into events (id, business_id, sequence, type, account_number, data, created_at)
  values (@id, @business_id, @sequence, @type, @account_number, @data, @created_at)`;
const ENABLED_ENDPOINTS =
  "select id, event_types from webhook_endpoints where business_id = ? and enabled = 1";
// The partial index's predicate as a literal (webhook_deliveries_pending_chain_idx).
const CHAIN_PENDING =
  "select 1 from webhook_deliveries where endpoint_id = ? and account_number = ? and state = 'pending' limit 1";
const INSERT_DELIVERY = `insert into webhook_deliveries
  (id, event_id, endpoint_id, business_id, sequence, account_number, state, attempts, next_attempt_at,
   lease_until, last_status, last_error, created_at, delivered_at)
  values (@id, @event_id, @endpoint_id, @business_id, @sequence, @account_number, 'pending', 0,
   @next_attempt_at, null, null, null, @created_at, null)
  on conflict (event_id, endpoint_id) do nothing`;

const LOCK_CHAINS = `select pg_advisory_xact_lock(k) from (
  select hashtextextended(e || ':' || $2, 0) as k from unnest($1::text[]) as e order by k
) as chains`;
// $1 ids, $2 endpoints, $3 event, $4 business, $5 sequence, $6 account number, $7 now, $8 UNSCHEDULED
const INSERT_DELIVERIES = `insert into webhook_deliveries
  (id, event_id, endpoint_id, business_id, sequence, account_number, state, attempts, next_attempt_at,
   lease_until, last_status, last_error, created_at, delivered_at)
select t.id, $3, t.endpoint_id, $4, $5, $6, 'pending', 0,
  case when $6::text is not null and exists (
    select 1 from webhook_deliveries d
    where d.endpoint_id = t.endpoint_id and d.account_number = $6 and d.state = 'pending'
  ) then $8 else $7 end,
  null, null, null, $7, null
from unnest($1::text[], $2::text[]) as t(id, endpoint_id)
on conflict (event_id, endpoint_id) do nothing`;
