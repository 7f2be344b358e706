// An event as the domain hands it to storage's writers (events/outbox.ts builds it; storage's
// sqlite/ and postgres/event-writes.ts write it, and the transfer and account writes carry it):
// here, in the core, because storage names it in its own signatures.

/** The event's fields, in the domain's names: its row, less the sequence storage assigns. */
export interface EventRecord {
  id: string;
  businessId: string;
  type: string;
  /** The account number it concerns, when it concerns one. */
  accountNumber: string | null;
  /** The event's data, as JSON. */
  data: string;
  createdAt: string;
}

/** An event as written: its fields and the sequence storage gave it. */
export interface WrittenEvent extends EventRecord {
  sequence: number;
}

/** An enabled endpoint of the business, with the event types it takes (JSON; null: every type). */
export interface EndpointTypes {
  id: string;
  eventTypes: string | null;
}

/**
 * An event for storage's writers: its fields, the counter behind its sequence, and the domain's
 * choice of endpoints and of when each delivery is first due.
 */
export interface EventToWrite {
  row: EventRecord;
  /** The counter behind the business's event sequence. */
  counter: string;
  /** Which of the business's enabled endpoints get a delivery. */
  targets(enabled: readonly EndpointTypes[]): string[];
  /**
   * When a delivery's first attempt is due: `behindPending` when the endpoint has a pending
   * delivery of the same account (the chain this one joins; see core/delivery-chain.ts).
   */
  firstAttempt(behindPending: boolean): string;
  deliveryId(): string;
}
