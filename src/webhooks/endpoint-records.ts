import type { EventType } from "../core/api-types.js";

/**
 * A webhook endpoint as kept, in the domain's names: what storage's endpoint reads answer and its
 * writes take (storage/webhook-repository.ts maps the columns).
 */
export interface StoredEndpoint {
  id: string;
  businessId: string;
  url: string;
  /** JSON array of event types; null: every type. */
  eventTypes: string | null;
  /** 1 or 0. */
  enabled: number;
  disabledReason: string | null;
  secretCiphertext: string;
  /** The secret a rotation replaced, which signs beside the new one until previousSecretUntil. */
  previousSecretCiphertext: string | null;
  previousSecretUntil: string | null;
  failingSince: string | null;
  consecutiveFailures: number;
  /** After a run of failures: nothing is attempted before this, then one probe. */
  pausedUntil: string | null;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A webhook endpoint as the API shows it (never its secret, but when created or rotated). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  /** The event types it receives; null: every type. */
  events: EventType[] | null;
  enabled: boolean;
  /** Why it was disabled (a 410, five days of failures, or the business). */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointWithSecret extends WebhookEndpoint {
  /** `whsec_` + base64 of 32 random bytes: shown only in this answer. */
  secret: string;
}

export function endpointView(endpoint: StoredEndpoint): WebhookEndpoint {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.eventTypes === null ? null : (JSON.parse(endpoint.eventTypes) as EventType[]),
    enabled: endpoint.enabled === 1,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}
