/**
 * One delivery attempt, as GET /events/:id/attempts shows it: storage's read of an event's
 * attempts answers it (the columns selected under its names).
 */
export interface DeliveryAttempt {
  endpointId: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  /** null when no answer came (refused, timed out, blocked address). */
  statusCode: number | null;
  /** The first 1 KiB of the answer. */
  responseExcerpt: string | null;
  error: string | null;
}

/**
 * An attempt as the delivery worker records it, with the delivery and the event it was for:
 * webhooks/attempt-outcome.ts makes it, storage's insert takes it and maps it to its columns.
 * Declared here because storage's write and read name them.
 */
export interface AttemptRecord extends DeliveryAttempt {
  /** `att_` and 32 hex digits. */
  id: string;
  deliveryId: string;
  eventId: string;
}
