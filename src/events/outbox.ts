import { randomUUID } from "node:crypto";
import { EVENT_TYPES, type EventType } from "../core/api-types.js";
import type { DeliveryDialect } from "../core/delivery-dialect.js";
import type { EventToWrite, WrittenEvent } from "../core/event-to-write.js";
import type { Executor } from "../storage/executor.js";
import { UNSCHEDULED } from "./delivery-chain.js";

// The outbox: an event is written in the same transaction as the change it describes, with one
// pending delivery per endpoint that takes its type. No change without its event, no event
// without its change; delivering happens later, in the worker, never in the request.

/** Every event type a business can receive. */
/** The types an endpoint subscribes to by default (and may list): webhook.test is sent on request only. */
/** The event types an endpoint can subscribe to: every type but the test event, which goes to the one endpoint asked. */
export type SubscribableType = Exclude<EventType, "webhook.test">;
export const SUBSCRIBABLE_TYPES = EVENT_TYPES.filter(
  (type): type is SubscribableType => type !== "webhook.test",
);

export interface NewEvent {
  businessId: string;
  type: EventType;
  /** The account number it concerns, when it concerns one. */
  accountNumber: string | null;
  data: unknown;
  /** Deliver to these endpoints only (webhook.test); otherwise to every enabled subscriber. */
  endpointIds?: readonly string[];
}

const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "")}`;

/** The counter behind a business's event sequence. */
export const eventSequenceCounter = (businessId: string) => `events:${businessId}`;

/**
 * The event as storage's writers take it (core/event-to-write.ts): its fields, less the
 * sequence storage assigns, and which endpoints get a delivery.
 */
export function eventToWrite(event: NewEvent, now: string): EventToWrite {
  return {
    row: {
      id: newId("evt"),
      businessId: event.businessId,
      type: event.type,
      accountNumber: event.accountNumber,
      data: JSON.stringify(event.data),
      createdAt: now,
    },
    counter: eventSequenceCounter(event.businessId),
    targets: (enabled) =>
      event.endpointIds
        ? [...event.endpointIds]
        : enabled
            .filter((endpoint) => subscribes(endpoint.eventTypes, event.type))
            .map((endpoint) => endpoint.id),
    // One account's events reach an endpoint in order: behind a pending delivery of the same
    // account, a delivery waits unscheduled until the one before it settles.
    firstAttempt: (behindPending) => (behindPending ? UNSCHEDULED : now),
    deliveryId: () => newId("dlv"),
  };
}

/**
 * Writes the event and its deliveries in the caller's transaction, with the dialect's one
 * spelling of an event (the hot path's). The counter's row stays locked to the end of the
 * transaction (PostgreSQL) or the whole transaction runs alone (SQLite): a business's sequences
 * are dense and in commit order.
 */
export function recordEvent(
  trx: Executor,
  deliveries: DeliveryDialect<Executor>,
  event: NewEvent,
  now: string,
): Promise<WrittenEvent> {
  return deliveries.recordEvent(trx, eventToWrite(event, now));
}

/** Whether an endpoint's stored type list (JSON, or null for every type) takes this type. */
export function subscribes(eventTypes: string | null, type: EventType): boolean {
  if (type === "webhook.test") return false;
  if (eventTypes === null) return true;
  return (JSON.parse(eventTypes) as string[]).includes(type);
}
