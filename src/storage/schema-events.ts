import type { Generated } from "kysely";
import type { DeliveryState } from "../core/api-types.js";

// The outbox and webhook delivery tables (events, endpoints, deliveries, attempts).

/** Something that happened to a business's money or accounts, written with the change itself. */
export interface EventsTable {
  id: string;
  business_id: string;
  /** 1, 2, 3... per business, no gaps. */
  sequence: number;
  type: string;
  /** The account number it concerns, when it concerns one. */
  account_number: string | null;
  /** JSON. */
  data: string;
  created_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  business_id: string;
  url: string;
  /** JSON array of event types; null: every type. */
  event_types: string | null;
  /** 1 or 0. */
  enabled: number;
  disabled_reason: string | null;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_until: string | null;
  failing_since: string | null;
  consecutive_failures: Generated<number>;
  /** After a run of failures: nothing is attempted before this, then one probe. */
  paused_until: Generated<string | null>;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  business_id: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: string;
  lease_until: string | null;
  /** The event's sequence and account number, for attempting one account's events in order. */
  sequence: Generated<number>;
  account_number: Generated<string | null>;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  /** The first 1 KiB of the response body. */
  response_excerpt: string | null;
  error: string | null;
}
