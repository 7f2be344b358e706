import { z } from "zod";
import type { Clock } from "../clock.js";
import type { ForBusiness } from "../core/actor.js";
import {
  type Delivery,
  type DeliveryState,
  EVENT_TYPES,
  type Event,
  type EventType,
} from "../core/api-types.js";
import type { WrittenEvent } from "../core/event-to-write.js";
import {
  type ListQuery,
  type Pagination,
  parsedBy,
  parseListQuery,
  singleParam,
} from "../core/validation.js";
import { eventNotFound } from "../errors.js";
import { readCounter } from "../storage/counter-repository.js";
import type { Storage } from "../storage/database.js";
import {
  countEventsOfType,
  deliveriesOf,
  eventsBySequence,
  eventsOfType,
  eventsWrittenAt,
  findEvent,
} from "../storage/event-repository.js";
import { lowestEventSequence, pruneEventsBefore } from "../storage/retention-repository.js";
import { writeTransaction } from "../storage/transactions.js";
import { UNSCHEDULED } from "./delivery-chain.js";
import { eventSequenceCounter } from "./outbox.js";

export type { Event };

export const EVENT_ID = /^evt_[0-9a-f]{32}$/;
const typeSchema = z.enum(EVENT_TYPES, { error: `type must be one of ${EVENT_TYPES.join(", ")}` });

/** What GET /events asks: a page, and optionally one type of event. */
export interface EventQuery extends ListQuery {
  type?: EventType;
}

/** GET /events' query: page and limit as every list takes them, then `type`. */
export const eventQuery = parsedBy((query): EventQuery => {
  const list = parseListQuery(query);
  const type = singleParam(query, "type", typeSchema);
  return type === undefined ? list : { ...list, type };
});

/** A delivery of an event to one endpoint, as storage reads it (event-repository.ts's deliveriesOf). */
export interface EventDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string;
  /** Until when a process holds it for an attempt. */
  leaseUntil: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

const deliveryView = (delivery: EventDelivery): Delivery => ({
  endpointId: delivery.endpointId,
  state: delivery.state,
  attempts: delivery.attempts,
  // Pending behind an earlier event of the same account: it is scheduled when that one settles.
  nextAttemptAt:
    delivery.state === "pending" && delivery.nextAttemptAt !== UNSCHEDULED ? delivery.nextAttemptAt : null,
  lastStatus: delivery.lastStatus,
  lastError: delivery.lastError,
  deliveredAt: delivery.deliveredAt,
});

function eventView(event: WrittenEvent, deliveries: readonly EventDelivery[]): Event {
  return {
    id: event.id,
    type: event.type as EventType,
    sequence: event.sequence,
    accountNumber: event.accountNumber,
    createdAt: event.createdAt,
    data: JSON.parse(event.data),
    deliveries: deliveries.filter((d) => d.eventId === event.id).map(deliveryView),
  };
}

export interface EventServiceOptions {
  storage: Storage;
  /** Events older than this many days are removed (EVENT_RETENTION_DAYS). */
  retentionDays: number;
  /** The bank's name, for account.expired's account. */
  bankName: string;
  now?: Clock;
}

/** What a business reads of its events, and the events no request causes (account.expired). */
export class EventService {
  private readonly now: Clock;

  constructor(private readonly options: EventServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** GET /events: newest first, optionally of one type, with each event's deliveries. */
  async list(
    business: ForBusiness,
    { page, limit, type }: EventQuery,
  ): Promise<{ items: Event[]; pagination: Pagination }> {
    const db = this.options.storage.db;
    const { businessId } = business;
    let rows: WrittenEvent[];
    let total: number;
    if (type === undefined) {
      // Sequences are dense per business from the lowest one retention kept: a page is a
      // sequence range, and the count is the range's length.
      const highest = await readCounter(db, eventSequenceCounter(businessId));
      const lowest = highest === 0 ? 1 : ((await lowestEventSequence(db, businessId)) ?? highest + 1);
      total = highest - lowest + 1;
      const upTo = highest - (page - 1) * limit;
      rows =
        upTo < lowest ? [] : await eventsBySequence(db, businessId, Math.max(lowest, upTo - limit + 1), upTo);
    } else {
      total = await countEventsOfType(db, businessId, type);
      const offset = (page - 1) * limit;
      rows = offset < total ? await eventsOfType(db, businessId, type, offset, limit) : [];
    }
    const deliveries = await deliveriesOf(
      db,
      rows.map((row) => row.id),
    );
    return {
      items: rows.map((row) => eventView(row, deliveries)),
      pagination: { page, limit, total, pages: Math.ceil(total / limit) },
    };
  }

  /** GET /events/:id: one of the business's events; anything else is 404. */
  async get(business: ForBusiness, id: string): Promise<Event> {
    if (!EVENT_ID.test(id)) throw eventNotFound();
    const db = this.options.storage.db;
    const row = await findEvent(db, business.businessId, id);
    if (!row) throw eventNotFound();
    return eventView(row, await deliveriesOf(db, [row.id]));
  }

  /**
   * The `payment.received` event of one of the business's transactions, with its deliveries;
   * undefined once retention has removed it.
   */
  async ofTransaction(
    business: ForBusiness,
    transaction: { id: string; createdAt: string },
  ): Promise<Event | undefined> {
    const db = this.options.storage.db;
    const rows = await eventsWrittenAt(db, business.businessId, "payment.received", transaction.createdAt);
    const row = rows.find(
      (candidate) => (JSON.parse(candidate.data) as { id?: unknown }).id === transaction.id,
    );
    return row === undefined ? undefined : eventView(row, await deliveriesOf(db, [row.id]));
  }

  /** The oldest instant whose events are still kept. */
  retainedSince(): string {
    return new Date(this.now() - this.options.retentionDays * 86_400_000).toISOString();
  }

  /**
   * Removes events older than the retention period, with their deliveries and attempts, in
   * batches of `batch` (each its own short transaction), at most `maxBatches` a run. Returns
   * how many events went.
   */
  async prune(batch = 500, maxBatches = 20): Promise<number> {
    const cutoff = this.retainedSince();
    let removed = 0;
    for (let i = 0; i < maxBatches; i++) {
      const gone = await writeTransaction(this.options.storage, (trx) =>
        pruneEventsBefore(trx, cutoff, batch),
      );
      removed += gone;
      if (gone < batch) break;
    }
    return removed;
  }
}
