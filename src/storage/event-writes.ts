import type { Selectable } from "kysely";
import type { EventsTable } from "./schema.js";

export type EventRow = Selectable<EventsTable>;

/** An enabled endpoint of the business, with the event types it takes (JSON; null: every type). */
export interface EndpointTypes {
  id: string;
  event_types: string | null;
}

/**
 * An event for the hot path's writers (outbox.ts builds it; sqlite/ and postgres/event-writes.ts
 * write it): the row less its sequence, which storage assigns from the business's counter, and
 * the domain's choice of endpoints.
 */
export interface EventToWrite {
  row: Omit<EventRow, "sequence">;
  /** The counter behind the business's event sequence. */
  counter: string;
  /** Which of the business's enabled endpoints get a delivery. */
  targets(enabled: readonly EndpointTypes[]): string[];
  /**
   * When a delivery's first attempt is due: `behindPending` when the endpoint has a pending
   * delivery of the same account (the chain this one joins; see delivery-repository.ts).
   */
  firstAttempt(behindPending: boolean): string;
  deliveryId(): string;
}
