import { z } from "zod";
import { check, parsedBy } from "../core/validation.js";
import { validationFailed } from "../errors.js";
import { SUBSCRIBABLE_TYPES, type SubscribableType } from "../events/outbox.js";
import { type UrlPolicy, urlProblem } from "./address-policy.js";

// What a business sends to create or change a webhook endpoint, checked in the order the
// fields are listed (url, events, enabled; the first problem is the 400's message).

const eventsSchema = z
  .array(
    z.enum(SUBSCRIBABLE_TYPES, { error: `events must list types among ${SUBSCRIBABLE_TYPES.join(", ")}` }),
    {
      error: "events must be an array of event types",
    },
  )
  .min(1, { error: "events must list at least one type (leave it out for every type)" })
  .max(SUBSCRIBABLE_TYPES.length, { error: "events must not repeat a type" })
  .refine((types) => new Set(types).size === types.length, { error: "events must not repeat a type" });

/** POST /webhooks `{url, events?}`. */
export interface NewEndpoint {
  url: string;
  /** The event types it takes; null: every type. */
  events: SubscribableType[] | null;
}

/** PATCH /webhooks/:id `{url?, events?, enabled?}`: what is sent changes, the rest stays. */
export interface EndpointChange {
  url?: string;
  events?: SubscribableType[] | null;
  enabled?: boolean;
}

/** The two bodies' rules, with the server's address policy (WEBHOOK_ALLOW_PRIVATE and its kin). */
export function endpointInputs(policy: UrlPolicy) {
  const url = (value: unknown): string => {
    const problem = urlProblem(value, policy);
    if (problem) throw validationFailed(problem);
    return new URL(value as string).toString();
  };
  return {
    create: parsedBy(
      (body): NewEndpoint => ({
        url: url(body.url),
        events: body.events == null ? null : check(eventsSchema, body.events),
      }),
    ),
    update: parsedBy((body): EndpointChange => {
      const change: EndpointChange = {};
      if (body.url !== undefined) change.url = url(body.url);
      if (body.events !== undefined)
        change.events = body.events === null ? null : check(eventsSchema, body.events);
      if (body.enabled !== undefined) {
        if (typeof body.enabled !== "boolean") throw validationFailed("enabled must be true or false");
        change.enabled = body.enabled;
      }
      return change;
    }),
  };
}
