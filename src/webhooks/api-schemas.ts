import { z } from "zod";
import type { Assert, Describes } from "../core/contracts.js";
import type { DeliveryAttempt } from "../core/delivery-attempt.js";
import { SUBSCRIBABLE_TYPES } from "../events/outbox.js";
import { MAX_URL_LENGTH, URL_ON_THE_WIRE } from "./address-policy.js";
import type { EndpointWithSecret, WebhookEndpoint } from "./endpoint-records.js";

// The public contract of the webhook endpoints as zod schemas, for the OpenAPI document.

const instant = (description: string) =>
  z.iso
    .datetime()
    .meta({ description: `${description} (UTC, milliseconds).`, examples: ["2026-01-01T09:30:00.000Z"] });
const endpointId = z
  .string()
  .regex(/^we_[0-9a-f]{32}$/)
  .meta({ examples: ["we_0b8f1c2d3e4f5a6b7c8d9e0f1a2b3c4d"] });
const eventTypes = z
  .array(z.enum(SUBSCRIBABLE_TYPES))
  .min(1)
  .max(SUBSCRIBABLE_TYPES.length)
  // zod has no unique arrays; the server refuses a repeated type (400).
  .meta({ description: "The event types delivered to it; `null` or absent: every type.", uniqueItems: true });
/** As sent: the pattern says all of the URL's form; where it may point is the server's address policy. */
const url = z
  .string()
  .max(MAX_URL_LENGTH)
  .regex(URL_ON_THE_WIRE)
  .meta({
    description:
      "Where to POST events: an absolute http or https URL with no credentials and no fragment. In " +
      "production the server also requires https and a public address (400 `VALIDATION_FAILED`; see " +
      "docs/webhooks.md), unless its operator allows otherwise.",
    examples: ["https://hooks.example.com/vas"],
  });

export const endpointSchema = z
  .strictObject({
    id: endpointId,
    url: z.string().meta({ examples: ["https://hooks.example.com/vas"] }),
    events: eventTypes.nullable(),
    enabled: z
      .boolean()
      .meta({ description: "Disabled endpoints get nothing; enable one again with PATCH." }),
    disabledReason: z
      .string()
      .nullable()
      .meta({ description: "Why it was disabled: a 410 answer, 5 days of failures, or the business." }),
    createdAt: instant("When it was created"),
    updatedAt: instant("When it last changed"),
  })
  .meta({ description: "Where the business's events are delivered." });

export const endpointWithSecretSchema = endpointSchema
  .extend({
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{43}=$/)
      .meta({
        description: "`whsec_` + base64 of 32 random bytes: shown only in this answer. Keep it secret.",
      }),
  })
  .meta({ description: "An endpoint and its signing secret, shown this once." });

export const createEndpointRequestSchema = z
  .looseObject({
    url,
    events: eventTypes.nullable().optional(),
  })
  .meta({
    description: "A new endpoint.",
    examples: [{ url: "https://hooks.example.com/vas", events: ["payment.received"] }],
  });

export const updateEndpointRequestSchema = z
  .looseObject({
    url: url.optional(),
    events: eventTypes.nullable().optional(),
    enabled: z.boolean().optional().meta({
      description:
        "`true` enables a disabled endpoint (clearing its run of failures); `false` disables it and ends its pending deliveries.",
    }),
  })
  .meta({ description: "What to change; absent fields stay as they are.", examples: [{ enabled: true }] });

export const redeliverRequestSchema = z
  .looseObject({
    endpointId: endpointId.optional().meta({
      description:
        "Only to this endpoint; absent: every enabled endpoint that had the event or takes its type.",
    }),
  })
  .meta({ description: "Where to deliver the event again." });

export const recoverRequestSchema = z
  .looseObject({
    since: z.iso.datetime({ offset: true }).meta({
      description: "Re-send every event created at or after this instant that the endpoint takes.",
      examples: ["2026-01-31T08:00:00Z"],
    }),
  })
  .meta({ description: "Where recovery starts." });

export const queuedSchema = z
  .strictObject({
    queued: z.int().min(0).meta({ description: "Deliveries queued: the worker sends them shortly." }),
  })
  .meta({ description: "What was queued." });

export const testEventSchema = z
  .strictObject({
    eventId: z.string().meta({ description: "The webhook.test event's id (its webhook-id)." }),
  })
  .meta({ description: "The test event, queued for this endpoint." });

export const attemptSchema = z
  .strictObject({
    endpointId,
    attempt: z.int().min(1),
    startedAt: instant("When the attempt started"),
    durationMs: z.int().min(0),
    statusCode: z.int().nullable().meta({ description: "`null` when no answer came." }),
    responseExcerpt: z.string().nullable().meta({ description: "The first 1 KiB of the answer." }),
    error: z.string().nullable(),
  })
  .meta({ description: "One attempt to deliver an event to an endpoint." });

/** Compiles only while each response schema describes exactly what the services return. */
export type WebhookSchemasMatchServices = [
  Assert<Describes<typeof endpointSchema, WebhookEndpoint>>,
  Assert<Describes<typeof endpointWithSecretSchema, EndpointWithSecret>>,
  Assert<Describes<typeof attemptSchema, DeliveryAttempt>>,
];
