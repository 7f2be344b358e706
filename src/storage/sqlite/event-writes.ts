import type SqliteDatabase from "better-sqlite3";
import type { EndpointTypes, EventToWrite, WrittenEvent } from "../../core/event-to-write.js";
import { prepared } from "../prepared.js";

/**
 * Inside a synchronous write: the event (the next sequence of its business) and one pending
 * delivery per target endpoint, on statements prepared once. A delivery joins its account's
 * chain (see delivery-repository.ts) when the endpoint has a pending one already. The write
 * transaction runs alone, so nothing settles a chain meanwhile.
 */
export function writeEventNow(db: SqliteDatabase.Database, event: EventToWrite): WrittenEvent {
  const { value } = prepared(db, ADVANCE_COUNTER).get(event.counter) as { value: number };
  const { row } = event;
  prepared(db, INSERT_EVENT).run({
    id: row.id,
    business_id: row.businessId,
    sequence: value,
    type: row.type,
    account_number: row.accountNumber,
    data: row.data,
    created_at: row.createdAt,
  });
  const enabled = prepared(db, ENABLED_ENDPOINTS).all(row.businessId) as EndpointTypes[];
  for (const endpointId of event.targets(enabled)) {
    const chained =
      row.accountNumber !== null &&
      prepared(db, CHAIN_PENDING).get(endpointId, row.accountNumber) !== undefined;
    prepared(db, INSERT_DELIVERY).run({
      id: event.deliveryId(),
      event_id: row.id,
      endpoint_id: endpointId,
      business_id: row.businessId,
      sequence: value,
      account_number: row.accountNumber,
      next_attempt_at: event.firstAttempt(chained),
      created_at: row.createdAt,
    });
  }
  return { ...row, sequence: value };
}

const ADVANCE_COUNTER = `insert into counters (name, value) values (?, 1)
  on conflict (name) do update set value = counters.value + 1 returning value`;
const INSERT_EVENT = `insert into events (id, business_id, sequence, type, account_number, data, created_at)
  values (@id, @business_id, @sequence, @type, @account_number, @data, @created_at)`;
const ENABLED_ENDPOINTS =
  "select id, event_types as eventTypes from webhook_endpoints where business_id = ? and enabled = 1";
// The partial index's predicate as a literal (webhook_deliveries_pending_chain_idx).
const CHAIN_PENDING =
  "select 1 from webhook_deliveries where endpoint_id = ? and account_number = ? and state = 'pending' limit 1";
const INSERT_DELIVERY = `insert into webhook_deliveries
  (id, event_id, endpoint_id, business_id, sequence, account_number, state, attempts, next_attempt_at,
   lease_until, last_status, last_error, created_at, delivered_at)
  values (@id, @event_id, @endpoint_id, @business_id, @sequence, @account_number, 'pending', 0,
   @next_attempt_at, null, null, null, @created_at, null)
  on conflict (event_id, endpoint_id) do nothing`;
